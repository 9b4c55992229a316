/**
 * The cluster over a load test: the instance admin API through the official client's generated
 * `v2.BigtableInstanceAdminClient` against an in-process gRPC server on the protos the client ships
 * (ListClusters, ListHotTablets: real serialization, real paging), Cloud Monitoring's ListTimeSeries
 * (its REST form) against an in-process HTTP server, the samples recorded in and read back from a
 * table on Google's emulator. The emulator has neither API: this is the part of `loadtest` not run
 * against a Google binary (docs/bigtable.md says so).
 */

import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientRequire, clientService } from "../../test/client-protos.js";
import { compileSchema } from "../keys/index.js";
import { parseScenario } from "../sim/scenario/scenario.js";
import { BigtableStore } from "../store/bigtable/bigtable.js";
import { CPU_LOAD, CPU_LOAD_HOTTEST_NODE, clusterCpu, MonitoringError } from "./cluster-cpu.js";
import {
  type ClusterSource,
  openAdminClusterSource,
  readClusterSamples,
  runCpu,
  summarizeCluster,
  watchCluster,
} from "./cluster-watch.js";
import { openRun, runRowKeys, scenarioHash } from "./run-record.js";
import { readRunStatus } from "./run-status.js";
import { scaleScenario } from "./scaled-scenario.js";

const clientGrpc = (clientRequire("google-gax") as { grpc: typeof grpc }).grpc;
const adminService = clientService(
  "google/bigtable/admin/v2/bigtable_instance_admin.proto",
  "google.bigtable.admin.v2.BigtableInstanceAdmin",
  { defaults: true },
);

const PROJECT = "p";
const INSTANCE = "i";
const INSTANCE_NAME = `projects/${PROJECT}/instances/${INSTANCE}`;
const CLUSTER_NAME = `${INSTANCE_NAME}/clusters/c1`;
const T0 = Date.parse("2026-12-01T00:00:00Z");
const MINUTE = 60_000;

/** Two hot tablets of the test's table and one of another per request, hot from the window's start. */
function fakeAdmin(options: { deny: boolean }) {
  const hotRequests: { parent: string; startS: number; endS: number }[] = [];
  return {
    hotRequests,
    implementation: {
      listClusters: (_call: unknown, callback: grpc.sendUnaryData<unknown>) =>
        callback(null, { clusters: [{ name: CLUSTER_NAME, serveNodes: 3, defaultStorageType: "SSD" }] }),
      listHotTablets: (
        call: grpc.ServerUnaryCall<
          { parent: string; startTime: { seconds: string }; endTime: { seconds: string } },
          unknown
        >,
        callback: grpc.sendUnaryData<unknown>,
      ) => {
        const startS = Number(call.request.startTime.seconds);
        hotRequests.push({ parent: call.request.parent, startS, endS: Number(call.request.endTime.seconds) });
        if (options.deny)
          return callback({ code: grpc.status.PERMISSION_DENIED, details: "Permission denied on resource" });
        const tablet = (table: string, startKey: string, endKey: string, cpu: number) => ({
          name: `${CLUSTER_NAME}/hotTablets/${table}-${startKey}-${startS}`,
          tableName: `${INSTANCE_NAME}/tables/${table}`,
          startTime: { seconds: String(startS), nanos: 0 },
          endTime: { seconds: String(startS + 60), nanos: 0 },
          startKey,
          endKey,
          nodeCpuUsagePercent: cpu,
        });
        callback(null, {
          hotTablets: [
            tablet("watched", "acme-000010", "acme-000040", 88),
            tablet("watched", "acme-000040", "acme-000070", 71),
            tablet("other", "a", "b", 99),
          ],
        });
      },
    },
  };
}

/** Cloud Monitoring's ListTimeSeries: cpu_load on two pages (0.3, 0.5), cpu_load_hottest_node 0.9; or 403. */
function fakeMonitoring(options: { deny: boolean }) {
  const requests: { metric: string; filter: string; start: string; end: string; auth: string }[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const filter = url.searchParams.get("filter") ?? "";
    const metric = /metric\.type = "([^"]+)"/.exec(filter)?.[1] ?? "";
    requests.push({
      metric,
      filter,
      start: url.searchParams.get("interval.startTime") ?? "",
      end: url.searchParams.get("interval.endTime") ?? "",
      auth: request.headers.authorization ?? "",
    });
    if (options.deny) {
      response.writeHead(403, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ error: { code: 403, message: "Permission monitoring.timeSeries.list denied" } }),
      );
      return;
    }
    const point = (value: number) => ({ value: { doubleValue: value } });
    const page =
      metric === CPU_LOAD_HOTTEST_NODE
        ? { timeSeries: [{ points: [point(0.9)] }] }
        : url.searchParams.get("pageToken") === "2"
          ? { timeSeries: [{ points: [point(0.5)] }] }
          : { timeSeries: [{ points: [point(0.3)] }], nextPageToken: "2" };
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify(page));
  });
  return { server, requests };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function serveAdmin(implementation: grpc.UntypedServiceImplementation) {
  const server = new grpc.Server();
  server.addService(adminService, implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return {
    server,
    adminOptions: { servicePath: "127.0.0.1", port, sslCreds: clientGrpc.credentials.createInsecure() },
  };
}

/** Stops the watch after `polls` observations: the clock moves a minute per poll. */
function stoppingAfter(source: ClusterSource, polls: number, stop: AbortController): ClusterSource {
  let seen = 0;
  return {
    async observe(from, to) {
      const sample = await source.observe(from, to);
      if (++seen >= polls) stop.abort();
      return sample;
    },
  };
}

const minutes = () => {
  let clock = T0;
  return () => {
    clock += MINUTE;
    return clock;
  };
};

describe("the cluster's CPU and hot tablets over a run (in-process admin and Monitoring servers, emulator table)", () => {
  const allowed = { admin: fakeAdmin({ deny: false }), monitoring: fakeMonitoring({ deny: false }) };
  const denied = { admin: fakeAdmin({ deny: true }), monitoring: fakeMonitoring({ deny: true }) };
  const servers: grpc.Server[] = [];
  const configs: Parameters<typeof openAdminClusterSource>[0][] = [];
  let store: BigtableStore;
  beforeAll(async () => {
    for (const side of [allowed, denied]) {
      const admin = await serveAdmin(side.admin.implementation);
      servers.push(admin.server);
      configs.push({
        projectId: PROJECT,
        instanceId: INSTANCE,
        tableId: "watched",
        adminOptions: admin.adminOptions,
        monitoringEndpoint: await listen(side.monitoring.server),
        accessToken: async () => "test-token",
      });
    }
    store = await BigtableStore.createTable({ tableId: `watch${process.pid}${Date.now().toString(36)}` });
  });
  afterAll(async () => {
    for (const server of servers) server.forceShutdown();
    for (const side of [allowed, denied]) side.monitoring.server.close();
    await store.deleteTable();
    await store.close();
  });

  it("records one sample per poll, contiguous windows from the run's start, and a restart goes on after the last", async () => {
    const opened = await openAdminClusterSource(configs[0]!);
    expect(opened.cluster).toEqual({ id: "c1", nodes: 3, storage: "ssd" });
    const now = minutes();
    try {
      for (const polls of [3, 2]) {
        const stop = new AbortController();
        const source = stoppingAfter(opened.source, polls, stop);
        await watchCluster({
          source,
          store,
          startMs: T0,
          endMs: T0 + 60 * MINUTE,
          pollMs: 1,
          signal: stop.signal,
          now,
        });
      }
      // Restarted after the run's end: no window goes past it, so nothing new is recorded.
      await watchCluster({
        source: opened.source,
        store,
        startMs: T0,
        endMs: T0 + 5 * MINUTE,
        pollMs: 1,
        signal: AbortSignal.timeout(50),
        now,
      });
    } finally {
      await opened.close();
    }
    const samples = await readClusterSamples(store);
    expect(samples.map((sample) => [sample.fromMs, sample.toMs])).toEqual(
      [0, 1, 2, 3, 4].map((k) => [T0 + k * MINUTE, T0 + (k + 1) * MINUTE]),
    );
    expect(samples[0]).toMatchObject({
      cpu: { average: 0.4, hottest: 0.9 },
      hotTablets: [
        { startKey: Buffer.from("acme-000010").toString("hex"), cpuPercent: 88, startMs: T0 },
        { startKey: Buffer.from("acme-000040").toString("hex"), cpuPercent: 71, startMs: T0 },
      ],
      errors: [],
    });
    // Each poll asked for its own window, of the watched cluster, with the client's token.
    expect(allowed.admin.hotRequests.map((request) => request.parent)).toEqual(Array(5).fill(CLUSTER_NAME));
    expect(allowed.admin.hotRequests[1]).toMatchObject({
      startS: (T0 + MINUTE) / 1000,
      endS: (T0 + 2 * MINUTE) / 1000,
    });
    const firstCpu = allowed.monitoring.requests.filter((request) => request.metric === CPU_LOAD);
    expect(firstCpu[0]).toMatchObject({
      start: new Date(T0).toISOString(),
      end: new Date(T0 + MINUTE).toISOString(),
      auth: "Bearer test-token",
    });
    expect(firstCpu[0]?.filter).toContain('resource.labels.cluster = "c1"');

    const cluster = summarizeCluster(samples);
    expect(cluster).toMatchObject({
      samples: 5,
      average: { mean: 0.4, max: 0.4, samples: 5 },
      hottest: { mean: 0.9, max: 0.9, samples: 5 },
      errors: {},
    });
    expect(cluster.hotTablets).toEqual([
      expect.objectContaining({
        startKey: Buffer.from("acme-000010").toString("hex"),
        maxCpuPercent: 88,
        periods: 5,
      }),
      expect.objectContaining({
        startKey: Buffer.from("acme-000040").toString("hex"),
        maxCpuPercent: 71,
        periods: 5,
      }),
    ]);
    // --calibrate and the side-by-side: the recorded means, unless a flag says otherwise.
    expect(runCpu({}, cluster)).toEqual({ hottest: 0.9, average: 0.4 });
    expect(runCpu({ hottest: 0.5 }, cluster)).toEqual({ hottest: 0.5, average: 0.4 });

    // `loadtest status` reads them with the run, and `delete` removes the row with the run's.
    const fleet = parseScenario(readFileSync("examples/fleet-hotspot.yaml", "utf8"));
    const scaled = scaleScenario(fleet, "as-is", 0.001, 1);
    const run = await openRun(store, {
      scenario: fleet.name,
      scenarioHash: scenarioHash(scaled.scenario),
      design: "as-is",
      schemaFingerprint: compileSchema(scaled.design.schema).fingerprint,
      scale: 0.001,
      tasks: 1,
      durationS: 300,
      nodes: 1,
    });
    expect((await readRunStatus(store))?.cluster).toEqual(cluster);
    await store.write(runRowKeys(run).map((key) => ({ type: "delete" as const, key })));
    expect(await readClusterSamples(store)).toEqual([]);
  });

  it("records what failed and goes on: a missing permission does not stop the run", async () => {
    const opened = await openAdminClusterSource(configs[1]!);
    const stop = new AbortController();
    const table = `watchdenied${process.pid}${Date.now().toString(36)}`;
    const deniedStore = await BigtableStore.createTable({ tableId: table });
    try {
      await watchCluster({
        source: stoppingAfter(opened.source, 2, stop),
        store: deniedStore,
        startMs: T0,
        endMs: T0 + 60 * MINUTE,
        pollMs: 1,
        signal: stop.signal,
        now: minutes(),
      });
      const samples = await readClusterSamples(deniedStore);
      expect(samples).toHaveLength(2);
      expect(samples[0]).toMatchObject({ cpu: {}, hotTablets: [] });
      const cluster = summarizeCluster(samples);
      expect(cluster).toMatchObject({ samples: 2, average: null, hottest: null, hotTablets: [] });
      // One error per source, each hit by both polls.
      expect(Object.values(cluster.errors)).toEqual([2, 2]);
      expect(runCpu({}, cluster)).toEqual({});
    } finally {
      await opened.close();
      await deniedStore.deleteTable();
      await deniedStore.close();
    }
  });

  it("names the HTTP status and the permission Monitoring refused", async () => {
    const refused = await clusterCpu(
      {
        projectId: PROJECT,
        instanceId: INSTANCE,
        clusterId: "c1",
        endpoint: configs[1]?.monitoringEndpoint ?? "",
        accessToken: async () => "t",
      },
      new Date(T0),
      new Date(T0 + MINUTE),
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MonitoringError);
    expect(refused).toMatchObject({ status: 403 });
    expect([CPU_LOAD, CPU_LOAD_HOTTEST_NODE]).toContain((refused as MonitoringError).metric);
  });
});
