/**
 * ListHotTablets and ListClusters through the official client's generated
 * `v2.BigtableInstanceAdminClient`, against an in-process gRPC server built from the protos the
 * client ships (real serialization, real paging). Google's emulator has no instance admin API, so
 * this is the one part of `diagnose` not run against a Google binary.
 */
import { v2 } from "@google-cloud/bigtable";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientRequire, clientService } from "../../../test/client-protos.js";
import { hotTabletWindows } from "./hot-tablet-windows.js";
import { chooseCluster, listClusters, listHotTablets } from "./instance-admin.js";

// The client checks its credentials against its own copy of grpc-js (7.x brings another).
const clientGrpc = (clientRequire("google-gax") as { grpc: typeof grpc }).grpc;
const service = clientService(
  "google/bigtable/admin/v2/bigtable_instance_admin.proto",
  "google.bigtable.admin.v2.BigtableInstanceAdmin",
  { defaults: true },
);

/** A ListHotTablets request as the server's loader decodes it (longs as text). */
interface ListHotTabletsRequest {
  parent: string;
  startTime: { seconds: string };
  endTime: { seconds: string };
  pageSize: number;
  pageToken: string;
}

const INSTANCE = "projects/p/instances/i";
const CLUSTER = `${INSTANCE}/clusters/c1`;
const T0 = Date.parse("2026-11-30T00:00:00Z");

interface Recorded {
  parent: string;
  startS: number;
  endS: number;
  pageSize: number;
  pageToken: string;
}

/** 7 hot tablets of table `metrics` and 2 of `other` per window; pages of the requested size. */
function fakeAdmin(options: { deny?: boolean }) {
  const requests: Recorded[] = [];
  const tabletsOf = (startS: number) =>
    Array.from({ length: 9 }, (_, k) => ({
      name: `${CLUSTER}/hotTablets/h${startS}-${k}`,
      tableName: `${INSTANCE}/tables/${k < 7 ? "metrics" : "other"}`,
      startTime: { seconds: String(startS), nanos: 0 },
      endTime: { seconds: String(startS + 900), nanos: 0 },
      startKey: `dev-${k}#`,
      endKey: `dev-${k}#~`,
      nodeCpuUsagePercent: 90 - k,
    }));
  const implementation = {
    listClusters: (_call: unknown, callback: grpc.sendUnaryData<unknown>) =>
      callback(null, {
        clusters: [
          { name: CLUSTER, serveNodes: 12, defaultStorageType: "SSD" },
          { name: `${INSTANCE}/clusters/c2`, serveNodes: 3, defaultStorageType: "HDD" },
        ],
      }),
    listHotTablets: (
      call: grpc.ServerUnaryCall<ListHotTabletsRequest, unknown>,
      callback: grpc.sendUnaryData<unknown>,
    ) => {
      const request = call.request;
      requests.push({
        parent: request.parent,
        startS: Number(request.startTime.seconds),
        endS: Number(request.endTime.seconds),
        pageSize: request.pageSize,
        pageToken: request.pageToken,
      });
      if (options.deny)
        return callback({ code: grpc.status.PERMISSION_DENIED, details: "Permission denied on resource" });
      if (request.parent !== CLUSTER)
        return callback({ code: grpc.status.NOT_FOUND, details: "Cluster not found" });
      const all = tabletsOf(Number(request.startTime.seconds));
      const from = request.pageToken === "" ? 0 : Number(request.pageToken);
      const to = from + request.pageSize;
      callback(null, { hotTablets: all.slice(from, to), nextPageToken: to < all.length ? String(to) : "" });
    },
  };
  return { implementation, requests };
}

async function serve(implementation: grpc.UntypedServiceImplementation) {
  const server = new grpc.Server();
  server.addService(service, implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  const admin = new v2.BigtableInstanceAdminClient({
    servicePath: "127.0.0.1",
    port,
    sslCreds: clientGrpc.credentials.createInsecure(),
  });
  return { server, admin };
}

describe("instance admin through the official client (in-process gRPC server)", () => {
  const allowed = fakeAdmin({});
  const denied = fakeAdmin({ deny: true });
  let servers: Awaited<ReturnType<typeof serve>>[] = [];
  beforeAll(async () => {
    servers = [await serve(allowed.implementation), await serve(denied.implementation)];
  });
  afterAll(async () => {
    for (const { server, admin } of servers) {
      await admin.close();
      server.forceShutdown();
    }
  });

  it("lists the clusters with their nodes and storage, and checks the cluster id", async () => {
    const clusters = await listClusters(servers[0]!.admin, INSTANCE);
    expect(clusters).toEqual([
      { id: "c1", nodes: 12, storage: "ssd" },
      { id: "c2", nodes: 3, storage: "hdd" },
    ]);
    expect(chooseCluster(clusters, "c2").nodes).toBe(3);
    expect(() => chooseCluster(clusters, "c9")).toThrow(
      expect.objectContaining({ name: "ClusterChoiceError", wanted: "c9", clusters: ["c1", "c2"] }),
    );
    expect(() => chooseCluster(clusters, undefined)).toThrow(
      expect.objectContaining({ name: "ClusterChoiceError", wanted: undefined, clusters: ["c1", "c2"] }),
    );
  });

  it("reads every page of every 48-hour window, and keeps the table's tablets", async () => {
    const windows = hotTabletWindows(72 * 3600, new Date(T0));
    const tablets = await listHotTablets(servers[0]!.admin, CLUSTER, "metrics", windows, 4);
    expect(tablets).toHaveLength(7 * windows.length);
    expect(tablets[0]).toMatchObject({
      table: "metrics",
      nodeCpuPercent: 90,
      startKey: Buffer.from("dev-0#"),
    });
    expect(tablets[0]!.endTime.getTime() - tablets[0]!.startTime.getTime()).toBe(900_000);
    const pages = allowed.requests.filter((request) => request.parent === CLUSTER);
    // 9 tablets in pages of 4: three requests per window, the later ones with the server's token.
    expect(pages.map((request) => request.pageToken)).toEqual(["", "4", "8", "", "4", "8"]);
    const hours = pages.map((request) => (request.endS - request.startS) / 3600);
    expect(hours).toEqual([48, 48, 48, 24, 24, 24]);
  });

  it("says which permission is missing", async () => {
    const windows = hotTabletWindows(3600, new Date(T0));
    await expect(listHotTablets(servers[1]!.admin, CLUSTER, "metrics", windows)).rejects.toThrow(
      /PERMISSION_DENIED.*bigtable\.clusters\.listHotTablets/,
    );
  });

  it("says a cluster does not exist", async () => {
    const windows = hotTabletWindows(3600, new Date(T0));
    await expect(
      listHotTablets(servers[0]!.admin, `${INSTANCE}/clusters/nope`, "metrics", windows),
    ).rejects.toThrow(
      expect.objectContaining({ name: "AdminCallError", status: 5, cluster: `${INSTANCE}/clusters/nope` }),
    );
  });
});
