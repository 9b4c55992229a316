import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../store/memory/memory.js";
import { TableIdempotency } from "./table-idempotency.js";

const WINDOW = 60_000;
const PENDING = 10_000;

function replicas(store = new MemoryStore()) {
  let now = 1_000_000;
  const clock = {
    advance: (ms: number) => {
      now += ms;
    },
    now: () => now,
  };
  const make = (id: string) => new TableIdempotency(store, id, WINDOW, clock.now, PENDING);
  return { store, clock, a: make("aaaaaaaaaa"), b: make("bbbbbbbbbb") };
}

const record = (key: string, atMs: number) => ({ key, fingerprint: "f1", accepted: 5, atMs });

describe("TableIdempotency", () => {
  it("answers a retry on another replica as a replay once the first confirmed, and 409 while it is pending", async () => {
    const { a, b, clock } = replicas();
    expect(await a.claim("k", "f1")).toEqual({ state: "claimed" });
    expect(await b.claim("k", "f1")).toEqual({ state: "in-flight", retryAfterSeconds: 10 });
    expect(await b.claim("k", "f2")).toEqual({ state: "other-request" });
    expect(await a.confirm(record("k", clock.now()))).toBe(true);
    expect(await b.claim("k", "f1")).toEqual({ state: "done", record: record("k", clock.now()) });
    expect(await b.claim("k", "other body")).toEqual({ state: "other-request" });
    // After the window the key is new again.
    clock.advance(WINDOW + 1);
    expect(await b.claim("k", "f1")).toEqual({ state: "claimed" });
  });

  it("lets a retry take a pending key over after its deadline; the stalled owner's confirm then fails and its replay skips it", async () => {
    const { a, b, clock } = replicas();
    await a.claim("k", "f1");
    clock.advance(PENDING + 1);
    expect(await b.claim("k", "f1")).toEqual({ state: "claimed" });
    // The owner's log append finished late: its confirm loses, so it never buffers the points.
    expect(await a.confirm(record("k", clock.now()))).toBe(false);
    expect(await b.confirm(record("k", clock.now()))).toBe(true);
    // After a crash, the owner's replay finds the key another replica's: it does not store it again.
    expect(await a.confirmReplayed(record("k", clock.now()))).toBe(false);
    expect(await b.confirmReplayed(record("k", clock.now()))).toBe(true);
  });

  it("gives a replica that died between its log fsync and its confirm its key back at the replay when nobody retried", async () => {
    const { a, b, clock } = replicas();
    await a.claim("k", "f1");
    // Crash: the pending claim stays. The restarted replica replays its log record.
    const restarted = new TableIdempotency(
      (a as unknown as { store: MemoryStore }).store,
      "aaaaaaaaaa",
      WINDOW,
      clock.now,
    );
    expect(await restarted.confirmReplayed(record("k", clock.now()))).toBe(true);
    expect((await b.claim("k", "f1")).state).toBe("done");
  });

  it("releases a claim whose request was not acknowledged, so a retry anywhere is processed afresh", async () => {
    const { a, b } = replicas();
    await a.claim("k", "f1");
    await a.release("k");
    expect(await b.claim("k", "f1")).toEqual({ state: "claimed" });
  });

  it("sweeps only expired claims", async () => {
    const { a, b, clock, store } = replicas();
    await a.claim("old", "f1");
    await a.confirm(record("old", clock.now()));
    clock.advance(WINDOW + 1);
    await b.claim("new", "f1");
    await b.confirm(record("new", clock.now()));
    expect(await a.sweep()).toBe(1);
    expect(store.size).toBe(1);
    expect((await a.claim("new", "f1")).state).toBe("done");
  });

  it("gives one of 12 replicas claiming one key at once the key, and the others 409", async () => {
    const store = new MemoryStore();
    const claims = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        new TableIdempotency(store, `r${String(i).padStart(9, "0")}`, WINDOW).claim("k", "f1"),
      ),
    );
    expect(claims.filter((claim) => claim.state === "claimed")).toHaveLength(1);
    expect(claims.filter((claim) => claim.state === "in-flight")).toHaveLength(11);
  });
});
