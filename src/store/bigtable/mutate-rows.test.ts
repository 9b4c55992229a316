import { describe, expect, it } from "vitest";
import type { StoreMutation } from "../store.js";
import {
  DEFAULT_MUTATE_ROWS_LIMITS,
  type EntryStatus,
  flowControlSignalOf,
  type MutateEntry,
  mutateRows,
  type SendMutateRows,
} from "./mutate-rows.js";

const limits = { ...DEFAULT_MUTATE_ROWS_LIMITS, baseDelayMs: 1, maxDelayMs: 2 };
const put = (key: string, cells = 1): StoreMutation => ({
  type: "put",
  key: Buffer.from(key),
  cells: new Map(Array.from({ length: cells }, (_, i) => [`c${i}`, Buffer.from("v")])),
});
const toEntry = (mutation: StoreMutation): MutateEntry => ({
  rowKey: mutation.key,
  mutations:
    mutation.type === "put"
      ? [...mutation.cells].map(([qualifier, value]) => ({
          setCell: { columnQualifier: Buffer.from(qualifier), value },
        }))
      : [{ deleteFromRow: {} }],
});
const keyOf = (entry: MutateEntry) => entry.rowKey.toString();

/** A fake server: `answer(key, attempt)` gives each entry's status; records every request. */
function server(answer: (key: string, attempt: number) => EntryStatus | undefined, rpcError?: string) {
  const requests: string[][] = [];
  const attempts = new Map<string, number>();
  const send: SendMutateRows = async (entries) => {
    requests.push(entries.map(keyOf));
    const statuses = entries.map((entry) => {
      const attempt = (attempts.get(keyOf(entry)) ?? 0) + 1;
      attempts.set(keyOf(entry), attempt);
      return answer(keyOf(entry), attempt);
    });
    return rpcError === undefined ? { statuses } : { statuses, error: { code: 14, message: rpcError } };
  };
  return { send, requests };
}

const ok = { code: 0, message: "" };

describe("mutateRows", () => {
  it("splits by cell count under the request limit and sends every row once", async () => {
    const { send, requests } = server(() => ok);
    const batch = Array.from({ length: 10 }, (_, i) => put(`k${i}`, 3));
    const result = await mutateRows(batch, toEntry, send, { ...limits, maxMutationsPerRequest: 7 });
    expect(result.failed).toEqual([]);
    expect(requests.map((request) => request.length)).toEqual([2, 2, 2, 2, 2]);
    expect(requests.flat().sort()).toEqual(batch.map((m) => m.key.toString()).sort());
  });

  it("retries retryable rows until they succeed", async () => {
    const { send, requests } = server((key, attempt) =>
      key === "flaky" && attempt < 3 ? { code: 14, message: "unavailable" } : ok,
    );
    const result = await mutateRows([put("a"), put("flaky"), put("b")], toEntry, send, limits);
    expect(result.failed).toEqual([]);
    expect(requests).toEqual([["a", "flaky", "b"], ["flaky"], ["flaky"]]);
  });

  it("reports rows that fail for good, or stay failing, by index with the reason", async () => {
    const { send } = server((key) =>
      key === "bad"
        ? { code: 13, message: "unknown family" }
        : key === "busy"
          ? { code: 8, message: "quota" }
          : ok,
    );
    const { failed } = await mutateRows([put("a"), put("bad"), put("b"), put("busy")], toEntry, send, limits);
    expect(failed.map((f) => [f.index, f.key.toString(), f.reason])).toEqual([
      [1, "bad", "INTERNAL: unknown family"],
      [3, "busy", "RESOURCE_EXHAUSTED: quota (after 5 attempts)"],
    ]);
  });

  it("re-sends rows the broken RPC never answered, and reports them if it stays broken", async () => {
    let calls = 0;
    const send: SendMutateRows = async (entries) => {
      calls++;
      return {
        statuses: entries.map((entry) => (keyOf(entry) === "a" ? ok : undefined)),
        error: { code: 14, message: "reset" },
      };
    };
    const { failed } = await mutateRows([put("a"), put("b"), put("c")], toEntry, send, limits);
    expect(failed.map((f) => f.index)).toEqual([1, 2]);
    expect(failed[0]?.reason).toBe("UNAVAILABLE: reset (after 5 attempts)");
    expect(calls).toBe(5);
    const thrown: SendMutateRows = async () => {
      throw new Error("socket closed");
    };
    const all = await mutateRows([put("x"), put("y")], toEntry, thrown, limits);
    expect(all.failed.map((f) => [f.index, f.reason])).toEqual([
      [0, "UNKNOWN: socket closed"],
      [1, "UNKNOWN: socket closed"],
    ]);
  });

  it("sends the mutations of a repeated key as one entry, in order, and gives them its outcome", async () => {
    const entries: MutateEntry[] = [];
    const send: SendMutateRows = async (sent) => {
      entries.push(...sent);
      return { statuses: sent.map((entry) => (keyOf(entry) === "k" ? { code: 9, message: "no" } : ok)) };
    };
    const batch: StoreMutation[] = [
      put("k"),
      put("j"),
      { type: "delete", key: Buffer.from("k") },
      put("k", 2),
    ];
    const { failed } = await mutateRows(batch, toEntry, send, limits);
    expect(entries.map((entry) => [keyOf(entry), entry.mutations.length])).toEqual([
      ["k", 4],
      ["j", 1],
    ]);
    expect(entries[0]!.mutations[1]).toEqual({ deleteFromRow: {} });
    expect(failed.map((f) => f.index)).toEqual([0, 2, 3]);
  });

  it("caps requests in flight", async () => {
    let inFlight = 0;
    let peak = 0;
    const send: SendMutateRows = async (entries) => {
      peak = Math.max(peak, ++inFlight);
      await Promise.resolve(); // in flight until the other workers have sent theirs
      inFlight--;
      return { statuses: entries.map(() => ok) };
    };
    const batch = Array.from({ length: 40 }, (_, i) => put(`k${i}`));
    await mutateRows(batch, toEntry, send, { ...limits, maxMutationsPerRequest: 2, maxInFlight: 3 });
    expect(peak).toBe(3);
  });

  it("rejects a row too wide for one request", async () => {
    const { send } = server(() => ok);
    await expect(
      mutateRows([put("wide", 5)], toEntry, send, { ...limits, maxMutationsPerRequest: 4 }),
    ).rejects.toThrow(/mutations\[0\] .* has 5 mutations/);
  });

  it("reports the flow-control signals of every response and overloaded call, when the sender has them", async () => {
    let call = 0;
    const send: SendMutateRows = async (entries) => {
      call++;
      if (call === 1) {
        return {
          statuses: entries.map(() => undefined),
          error: { code: 8, message: "quota" },
          flowControl: [],
        };
      }
      return {
        statuses: entries.map(() => ok),
        flowControl: [{ type: "rate-limit", factor: 0.8, periodMs: 20_000 }, { type: "none" }],
      };
    };
    const result = await mutateRows([put("a"), put("b")], toEntry, send, limits);
    expect(result.failed).toEqual([]);
    expect(result.flowControl).toEqual([
      { type: "overloaded", code: 8 },
      { type: "rate-limit", factor: 0.8, periodMs: 20_000 },
      { type: "none" },
    ]);
    const { send: plain } = server(() => ok, "broken");
    expect((await mutateRows([put("a")], toEntry, plain, limits)).flowControl).toBeUndefined();
  });

  it("reads RateLimitInfo as decoded (seconds as text or a Long, nanos), and its absence as none", () => {
    expect(flowControlSignalOf({ period: { seconds: "20", nanos: 500_000_000 }, factor: 1.2 })).toEqual({
      type: "rate-limit",
      factor: 1.2,
      periodMs: 20_500,
    });
    expect(flowControlSignalOf({ period: { seconds: { toString: () => "5" } }, factor: 0.9 })).toMatchObject({
      periodMs: 5_000,
    });
    expect(flowControlSignalOf({ factor: 0.5 })).toEqual({ type: "rate-limit", factor: 0.5, periodMs: 0 });
    expect(flowControlSignalOf(null)).toEqual({ type: "none" });
    expect(flowControlSignalOf(undefined)).toEqual({ type: "none" });
  });
});
