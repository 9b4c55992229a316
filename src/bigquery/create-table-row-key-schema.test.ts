/**
 * `table create --row-key-schema`'s request, as the official client sends it, decoded by an
 * in-process gRPC server built from the client's own admin protos (Google's emulator does not
 * know `row_key_schema`): the schema's fields and delimiter arrive beside the family, its GC rule
 * and the bucket splits.
 */
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientService } from "../../test/client-protos.js";
import { BigtableStore } from "../store/bigtable/bigtable.js";
import { bucketSplits } from "../table/splits.js";
import { rowKeySchemaFor } from "./row-key-schema.js";
import { exampleSchemas } from "./sql-schemas.fixture.js";

const service = clientService(
  "google/bigtable/admin/v2/bigtable_table_admin.proto",
  "google.bigtable.admin.v2.BigtableTableAdmin",
  { oneofs: true },
);

interface CreateTableRequest {
  parent: string;
  tableId: string;
  table: {
    columnFamilies: Record<string, { gcRule: unknown }>;
    rowKeySchema?: {
      fields: {
        fieldName: string;
        type: { kind: string; stringType?: { encoding: { encoding: string } } };
      }[];
      encoding: { encoding: string; delimitedBytes?: { delimiter: Buffer } };
    };
  };
  initialSplits: { key: Buffer }[];
}

describe("table create with a row key schema (official client, in-process admin server)", () => {
  const requests: CreateTableRequest[] = [];
  const server = new grpc.Server();
  let port = 0;
  beforeAll(async () => {
    server.addService(service, {
      createTable: (
        call: grpc.ServerUnaryCall<CreateTableRequest, unknown>,
        callback: grpc.sendUnaryData<unknown>,
      ) => {
        requests.push(call.request);
        callback(null, { name: `${call.request.parent}/tables/${call.request.tableId}` });
      },
    });
    port = await new Promise<number>((ok, fail) =>
      server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
        error ? fail(error) : ok(bound),
      ),
    );
  });
  afterAll(() => server.forceShutdown());

  it("sends the fleet's row key schema with the family, its age-or-versions GC rule and the splits", async () => {
    const fleet = exampleSchemas().find((s) => s.spec.name === "fleet")!;
    const fit = rowKeySchemaFor(fleet, "m");
    if (!fit.fits) throw new Error(fit.reasons.map((reason) => reason.message).join("; "));
    const store = await BigtableStore.createTable({
      projectId: "acme",
      instanceId: "metrics",
      tableId: "fleet",
      family: "m",
      env: {},
      clientOptions: { apiEndpoint: `127.0.0.1:${port}` },
      splits: bucketSplits(fleet),
      maxAgeSeconds: 86_400,
      rowKeySchema: fit.struct,
    });
    await store.close();
    expect(requests).toHaveLength(1);
    const request = requests[0]!;
    expect(request.parent).toBe("projects/acme/instances/metrics");
    expect(request.tableId).toBe("fleet");
    expect(request.table.columnFamilies.m?.gcRule).toMatchObject({
      rule: "union",
      union: { rules: [{ maxAge: { seconds: "86400" } }, { maxNumVersions: 1 }] },
    });
    expect(request.initialSplits.map((s) => s.key.toString())).toEqual(
      bucketSplits(fleet).map((key) => key.toString()),
    );
    const schema = request.table.rowKeySchema!;
    expect(
      schema.fields.map((f) => [f.fieldName, f.type.kind, f.type.stringType?.encoding.encoding]),
    ).toEqual([
      ["bucket", "stringType", "utf8Bytes"],
      ["deviceId", "stringType", "utf8Bytes"],
      ["metric", "stringType", "utf8Bytes"],
      ["ts", "stringType", "utf8Bytes"],
    ]);
    expect(schema.encoding.encoding).toBe("delimitedBytes");
    expect(schema.encoding.delimitedBytes?.delimiter).toEqual(Buffer.from("#"));
  });
});
