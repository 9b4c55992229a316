/**
 * Batch write flow control end to end: BigtableStore, through the official client, against an
 * in-process gRPC server built from the protos that client ships (real serialization). Google's
 * emulator never sends RateLimitInfo, so this is the nearest real thing: the server answers
 * MutateRows with the `rate_limit_info` a loaded cluster would send, and records each request's
 * app profile and `bigtable-features` header.
 */
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { clientRequire, clientService, PROTO_DIRS } from "../../../test/client-protos.js";
import { followRateLimit } from "../../migrate/write-flow-control.js";
import type { StoreMutation } from "../store.js";
import { BigtableStore } from "./bigtable.js";

const gax = clientRequire("google-gax") as { protobuf: typeof import("protobufjs") };
const service = clientService("google/bigtable/v2/bigtable.proto", "google.bigtable.v2.Bigtable", {
  defaults: true,
});
/** The FeatureFlags message, to read the header as the server would. */
const featureFlags = new gax.protobuf.Root();
featureFlags.resolvePath = (_origin, target) => join(PROTO_DIRS[0]!, target);
featureFlags.loadSync("google/bigtable/v2/feature_flags.proto");
const FeatureFlags = featureFlags.lookupType("google.bigtable.v2.FeatureFlags");

interface MutateRowsRequest {
  tableName: string;
  appProfileId: string;
  entries: { rowKey: Buffer }[];
}
interface Recorded {
  appProfileId: string;
  rows: number;
  features: Record<string, unknown> | undefined;
}
/** What the server does with the next call: answer with this RateLimitInfo (or none), or fail. */
type Answer = { rateLimit?: { factor: number; seconds: number } } | { fail: grpc.status };

const requests: Recorded[] = [];
let answers: Answer[] = [];
let defaultAnswer: Answer = {};

function mutateRows(call: grpc.ServerWritableStream<MutateRowsRequest, unknown>): void {
  const header = call.metadata.get("bigtable-features")[0];
  requests.push({
    appProfileId: call.request.appProfileId,
    rows: call.request.entries.length,
    features:
      header === undefined
        ? undefined
        : FeatureFlags.toObject(FeatureFlags.decode(Buffer.from(String(header), "base64url"))),
  });
  const answer = answers.shift() ?? defaultAnswer;
  if ("fail" in answer) {
    call.emit("error", { code: answer.fail, details: "the cluster is overloaded" });
    return;
  }
  call.write({
    entries: call.request.entries.map((_, index) => ({ index, status: { code: 0, message: "" } })),
    ...(answer.rateLimit === undefined
      ? {}
      : {
          rateLimitInfo: { period: { seconds: answer.rateLimit.seconds }, factor: answer.rateLimit.factor },
        }),
  });
  call.end();
}

const put = (key: string): StoreMutation => ({
  type: "put",
  key: Buffer.from(key),
  cells: new Map([["v", Buffer.from("1")]]),
});
const batch = (n: number, from = 0) => Array.from({ length: n }, (_, i) => put(`row-${from + i}`));

let server: grpc.Server;
let store: BigtableStore;

beforeAll(async () => {
  server = new grpc.Server();
  server.addService(service, { mutateRows });
  const port = await new Promise<number>((done, fail) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? fail(error) : done(bound),
    ),
  );
  const endpoint = `127.0.0.1:${port}`;
  store = await BigtableStore.open({
    tableId: "flow",
    appProfileId: "default-profile",
    env: { BIGTABLE_EMULATOR_HOST: endpoint },
    clientOptions: { apiEndpoint: endpoint },
    limits: { baseDelayMs: 1, maxDelayMs: 2 },
  });
});

afterAll(async () => {
  await store?.close();
  server?.forceShutdown();
});

beforeEach(() => {
  requests.length = 0;
  answers = [];
  defaultAnswer = {};
});

describe("BigtableStore and batch write flow control (in-process server on the client's protos)", () => {
  it("announces the feature and reports the RateLimitInfo of each MutateRows response", async () => {
    answers = [{ rateLimit: { factor: 0.5, seconds: 20 } }];
    const result = await store.write(batch(3), { batchWriteFlowControl: true });
    expect(result).toEqual({
      failed: [],
      flowControl: [{ type: "rate-limit", factor: 0.5, periodMs: 20_000 }],
    });
    expect(requests).toEqual([
      {
        appProfileId: "default-profile",
        rows: 3,
        features: { mutateRowsRateLimit: true, mutateRowsRateLimit2: true },
      },
    ]);
  });

  it("without the option sends no feature header and reports nothing", async () => {
    defaultAnswer = { rateLimit: { factor: 0.5, seconds: 20 } };
    const result = await store.write(batch(2));
    expect(result).toEqual({ failed: [] });
    expect(requests[0]!.features).toBeUndefined();
  });

  it("sends each write's own app profile in the request", async () => {
    await store.write(batch(1), { appProfile: "backfill-low-priority", batchWriteFlowControl: true });
    await store.write(batch(1));
    expect(requests.map((request) => request.appProfileId)).toEqual([
      "backfill-low-priority",
      "default-profile",
    ]);
  });

  it("reports a response without info as none, and an overloaded call before its retry succeeds", async () => {
    answers = [{ fail: grpc.status.UNAVAILABLE }, {}];
    const result = await store.write(batch(2), { batchWriteFlowControl: true });
    expect(result).toEqual({
      failed: [],
      flowControl: [{ type: "overloaded", code: 14 }, { type: "none" }],
    });
  });

  it("a writer following it slows down at factor 0.5, speeds up at 1.5, and is freed when info stops", async () => {
    let now = 0;
    const flow = followRateLimit(store, {
      initialRowsPerSecond: 1000,
      maxRowsPerSecond: 4000,
      now: () => now,
      sleep: async (ms) => {
        now += ms;
      },
    });
    const rates: number[] = [];
    const batchSeconds: number[] = [];
    const writeBatches = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const started = now;
        const result = await flow.store.write(batch(100, i * 100), { appProfile: "backfill-low-priority" });
        expect(result.failed).toEqual([]);
        await flow.pace(100);
        rates.push(flow.rowsPerSecond);
        batchSeconds.push((now - started) / 1000);
      }
    };
    // The server says 0.5 every response, period 1 s: the rate falls by Java's cap (×0.7) each period.
    defaultAnswer = { rateLimit: { factor: 0.5, seconds: 1 } };
    await writeBatches(8);
    const slowest = rates.at(-1)!;
    expect(rates[0]).toBeCloseTo(700);
    expect(slowest).toBeLessThan(rates[0]!);
    for (let i = 1; i < rates.length; i++) expect(rates[i]).toBeLessThanOrEqual(rates[i - 1]!);
    expect(batchSeconds.at(-1)!).toBeGreaterThan(batchSeconds[0]!);
    // Then 1.5: it climbs back (×1.3 per period), never past the maximum.
    defaultAnswer = { rateLimit: { factor: 1.5, seconds: 1 } };
    rates.length = 0;
    batchSeconds.length = 0;
    await writeBatches(8);
    expect(rates.at(-1)!).toBeGreaterThan(slowest);
    for (let i = 1; i < rates.length; i++) expect(rates[i]).toBeGreaterThanOrEqual(rates[i - 1]!);
    expect(Math.max(...rates)).toBeLessThanOrEqual(4000);
    expect(batchSeconds.at(-1)!).toBeLessThan(batchSeconds[0]!);
    expect(flow.limited).toBe(true);
    // Responses without info, once the period is over: the server no longer limits the writer.
    defaultAnswer = {};
    now += 1_001;
    await flow.store.write(batch(1), { appProfile: "backfill-low-priority" });
    expect(flow.limited).toBe(false);
    expect(flow.rowsPerSecond).toBe(4000);
    expect(requests.every((request) => request.appProfileId === "backfill-low-priority")).toBe(true);
    expect(requests.every((request) => request.features?.mutateRowsRateLimit2 === true)).toBe(true);
  });
});

describe("batch write flow control on Google's emulator", () => {
  it("writes with the feature announced; the emulator sends no RateLimitInfo, so every response is none", async () => {
    const onEmulator = await BigtableStore.createTable({
      tableId: `flow${process.pid}_${Date.now().toString(36)}`,
    });
    try {
      const result = await onEmulator.write(batch(50), { batchWriteFlowControl: true });
      expect(result.failed).toEqual([]);
      expect(result.flowControl?.length).toBeGreaterThan(0);
      expect(new Set(result.flowControl?.map((signal) => signal.type))).toEqual(new Set(["none"]));
      expect((await onEmulator.get(Buffer.from("row-49")))?.cells.get("v")).toEqual(Buffer.from("1"));
    } finally {
      await onEmulator.close();
    }
  });
});
