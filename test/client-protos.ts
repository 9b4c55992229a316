/**
 * The .proto files the installed @google-cloud/bigtable ships (6.x also as protos.json, 7.x only as
 * .proto), with the google/api and google/iam imports from its own google-gax: the services an
 * in-process gRPC server implements where Google's emulator has no such API, so requests are
 * decoded as a real server would.
 */
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import type * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

// The client's auth library looks for a metadata server it does not need here (insecure channel).
process.env.METADATA_SERVER_DETECTION ??= "none";

const require = createRequire(import.meta.url);
const packageRoot = (main: string) => resolve(dirname(main), "../..");
const bigtableRoot = packageRoot(require.resolve("@google-cloud/bigtable"));
/** `require` as the Bigtable client resolves it (its own google-gax and grpc-js). */
export const clientRequire = createRequire(join(bigtableRoot, "package.json"));
const gaxRoot = packageRoot(clientRequire.resolve("google-gax"));
export const PROTO_DIRS = [join(bigtableRoot, "build/protos"), join(gaxRoot, "build/protos")];

/** One service of the client's protos, e.g. `clientService("google/bigtable/v2/bigtable.proto", "google.bigtable.v2.Bigtable")`. */
export function clientService(
  file: string,
  service: string,
  options: protoLoader.Options = {},
): grpc.ServiceDefinition {
  const definition = protoLoader.loadSync(file, { includeDirs: PROTO_DIRS, longs: String, ...options });
  return definition[service] as grpc.ServiceDefinition;
}
