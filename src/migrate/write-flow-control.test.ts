import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FlowControlSignal, Store, StoreWriteResult } from "../store/store.js";
import { followRateLimit, MAX_FACTOR, MIN_FACTOR, WriteFlowControl } from "./write-flow-control.js";

/** A clock the test moves. */
function clock(start = 0) {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

const rateLimit = (factor: number, periodMs: number): FlowControlSignal => ({
  type: "rate-limit",
  factor,
  periodMs,
});
const none: FlowControlSignal = { type: "none" };

/** A random signal: valid or invalid info, none, or an overloaded call; and the time before it. */
const step = fc.record({
  gapMs: fc.integer({ min: 0, max: 30_000 }),
  signal: fc.oneof(
    fc.record({
      type: fc.constant("rate-limit" as const),
      factor: fc.double({ min: -1, max: 5, noNaN: true }),
      periodMs: fc.integer({ min: 0, max: 60_000 }),
    }),
    fc.constant(none),
    fc.record({ type: fc.constant("overloaded" as const), code: fc.constantFrom(4, 8, 14) }),
  ),
});
const bounds = fc
  .tuple(fc.double({ min: 1, max: 1e6, noNaN: true }), fc.double({ min: 1, max: 1e3, noNaN: true }))
  .map(([min, span]) => ({ minRowsPerSecond: min, maxRowsPerSecond: min * span }));

describe("WriteFlowControl (Java's RateLimitingServerStreamingCallable rules)", () => {
  it("follows the server's factor, capped to [0.7, 1.3], from the initial rate", () => {
    const time = clock();
    const control = new WriteFlowControl({ initialRowsPerSecond: 1000, now: time.now });
    expect(control.limited).toBe(false);
    control.observe(rateLimit(0.5, 10_000));
    expect(control.limited).toBe(true);
    expect(control.rowsPerSecond).toBeCloseTo(700);
    time.advance(10_000);
    control.observe(rateLimit(1.5, 10_000));
    expect(control.rowsPerSecond).toBeCloseTo(910);
    time.advance(10_000);
    control.observe(rateLimit(0.9, 10_000));
    expect(control.rowsPerSecond).toBeCloseTo(819);
  });

  it("ignores factors inside the period, and treats invalid info as none", () => {
    const time = clock();
    const control = new WriteFlowControl({ initialRowsPerSecond: 1000, now: time.now });
    control.observe(rateLimit(0.8, 5_000));
    time.advance(4_999);
    control.observe(rateLimit(0.8, 5_000));
    expect(control.rowsPerSecond).toBeCloseTo(800);
    control.observe(rateLimit(0, 5_000)); // factor ≤ 0: invalid, and inside the period: no change
    control.observe(rateLimit(0.8, 500)); // period under a second: invalid
    expect(control.limited).toBe(true);
    expect(control.rowsPerSecond).toBeCloseTo(800);
  });

  it("lifts the limit when responses stop carrying info after the period, and keeps the rate for later", () => {
    const time = clock();
    const control = new WriteFlowControl({
      initialRowsPerSecond: 1000,
      maxRowsPerSecond: 5000,
      now: time.now,
    });
    control.observe(rateLimit(0.7, 10_000));
    time.advance(10_000);
    control.observe(none); // at the end of the period, not after it: still limited
    expect(control.rowsPerSecond).toBeCloseTo(700);
    time.advance(1);
    control.observe(none);
    expect(control.limited).toBe(false);
    expect(control.rowsPerSecond).toBe(5000);
    control.observe(rateLimit(1.3, 10_000));
    expect(control.rowsPerSecond).toBeCloseTo(910);
  });

  it("slows down on an overloaded call without turning the limit on", () => {
    const time = clock();
    const control = new WriteFlowControl({
      initialRowsPerSecond: 1000,
      maxRowsPerSecond: 5000,
      now: time.now,
    });
    control.observe({ type: "overloaded", code: 14 });
    expect(control.limited).toBe(false);
    expect(control.rowsPerSecond).toBe(5000);
    expect(control.limitRowsPerSecond).toBeCloseTo(700);
    time.advance(9_999);
    control.observe(rateLimit(1.3, 1_000)); // the overload's 10 s hold the rate
    expect(control.rowsPerSecond).toBeCloseTo(700);
  });

  it("refuses bounds that are not positive rates", () => {
    const option = (field: string, value: unknown, allowed?: string) =>
      expect.objectContaining({ name: "MigrateOptionError", field, value, ...(allowed ? { allowed } : {}) });
    expect(() => new WriteFlowControl({ maxRowsPerSecond: 0 })).toThrow(option("maxRowsPerSecond", 0));
    expect(() => new WriteFlowControl({ minRowsPerSecond: 50, maxRowsPerSecond: 10 })).toThrow(
      option("minRowsPerSecond", 50, "at most maxRowsPerSecond (10)"),
    );
    expect(() => new WriteFlowControl({ initialRowsPerSecond: Number.NaN })).toThrow(
      option("initialRowsPerSecond", Number.NaN),
    );
  });

  it("property: the rate stays within [min, max], whatever the server says", () => {
    fc.assert(
      fc.property(bounds, fc.array(step, { maxLength: 60 }), (limits, steps) => {
        const time = clock();
        const control = new WriteFlowControl({
          ...limits,
          initialRowsPerSecond: limits.maxRowsPerSecond,
          now: time.now,
        });
        for (const { gapMs, signal } of steps) {
          time.advance(gapMs);
          control.observe(signal);
          expect(control.rowsPerSecond).toBeLessThanOrEqual(limits.maxRowsPerSecond);
          expect(control.rowsPerSecond).toBeGreaterThanOrEqual(limits.minRowsPerSecond);
          expect(control.limitRowsPerSecond).toBeGreaterThanOrEqual(limits.minRowsPerSecond);
        }
      }),
    );
  });

  it("property: the rate changes at most once per period, by a factor within the caps", () => {
    fc.assert(
      fc.property(bounds, fc.array(step, { maxLength: 60 }), (limits, steps) => {
        const time = clock();
        const control = new WriteFlowControl({ ...limits, now: time.now });
        let holdUntil = Number.NEGATIVE_INFINITY;
        for (const { gapMs, signal } of steps) {
          time.advance(gapMs);
          const before = control.limitRowsPerSecond;
          control.observe(signal);
          const after = control.limitRowsPerSecond;
          if (after === before) continue;
          expect(time.now()).toBeGreaterThanOrEqual(holdUntil);
          expect(after / before).toBeGreaterThanOrEqual(MIN_FACTOR - 1e-9);
          expect(after / before).toBeLessThanOrEqual(MAX_FACTOR + 1e-9);
          holdUntil = time.now() + (signal.type === "rate-limit" ? signal.periodMs : 10_000);
        }
      }),
    );
  });

  it("property: a factor below 1 never speeds up, above 1 never slows down, and moves unless at a bound", () => {
    fc.assert(
      fc.property(
        bounds,
        fc.double({ min: 0.01, max: 4, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (limits, factor, at) => {
          const time = clock();
          const initial = limits.minRowsPerSecond + at * (limits.maxRowsPerSecond - limits.minRowsPerSecond);
          const control = new WriteFlowControl({ ...limits, initialRowsPerSecond: initial, now: time.now });
          control.observe(rateLimit(factor, 1_000));
          const next = control.rowsPerSecond;
          if (factor < 1) {
            expect(next).toBeLessThanOrEqual(initial);
            if (initial > limits.minRowsPerSecond) expect(next).toBeLessThan(initial);
          }
          if (factor > 1) {
            expect(next).toBeGreaterThanOrEqual(initial);
            if (initial < limits.maxRowsPerSecond) expect(next).toBeGreaterThan(initial);
          }
        },
      ),
    );
  });
});

describe("followRateLimit", () => {
  /** A store whose writes answer with the given signals; records each write's options. */
  function signallingStore(signals: () => FlowControlSignal[]) {
    const options: unknown[] = [];
    const store = {
      name: "fake",
      write: async (_mutations: unknown, writeOptions?: unknown): Promise<StoreWriteResult> => {
        options.push(writeOptions);
        return { failed: [], flowControl: signals() };
      },
    } as unknown as Store;
    return { store, options };
  }

  it("announces flow control on every write, keeps the caller's options, and follows the answers", async () => {
    let next: FlowControlSignal[] = [rateLimit(0.5, 1_000)];
    const { store, options } = signallingStore(() => next);
    const time = clock();
    const flow = followRateLimit(store, { initialRowsPerSecond: 100, maxRowsPerSecond: 200, now: time.now });
    expect(flow.rowsPerSecond).toBe(200);
    await flow.store.write([], { appProfile: "batch-low" });
    expect(options).toEqual([{ appProfile: "batch-low", batchWriteFlowControl: true }]);
    expect(flow.limited).toBe(true);
    expect(flow.rowsPerSecond).toBeCloseTo(70);
    time.advance(1_001);
    next = [none];
    await flow.store.write([]);
    expect(flow.limited).toBe(false);
    expect(flow.rowsPerSecond).toBe(200);
  });

  it("paces rows to the rate in force, without banking time a slow write lost", async () => {
    const time = clock();
    const { store } = signallingStore(() => []);
    const sleeps: number[] = [];
    const flow = followRateLimit(store, {
      maxRowsPerSecond: 100,
      now: time.now,
      sleep: async (ms) => {
        sleeps.push(ms);
        time.advance(ms);
      },
    });
    await flow.pace(50); // 50 rows at 100/s: half a second
    await flow.pace(100);
    expect(time.now()).toBeCloseTo(1_500);
    time.advance(5_000); // a slow write: its 10 rows took longer than their 0.1 s
    await flow.pace(10);
    expect(sleeps).toHaveLength(2);
    await flow.pace(10); // the 5 s lost are not made up by a burst
    expect(sleeps.at(-1)).toBeCloseTo(100);
    await expect(flow.pace(-1)).rejects.toMatchObject({
      name: "MigrateOptionError",
      field: "rows",
      value: -1,
    });
  });
});
