import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MODEL_ENDS } from "../cluster/model-constants.js";
import { type ClientRead, callsPerRead, clientCores, clientRowsPerRead } from "./client-cores.js";

const kind = fc.constantFrom<ClientRead["kind"]>("latest", "scan", "get");
const read = fc.record({
  name: fc.constant("r"),
  kind,
  perS: fc.double({ min: 0, max: 1e5, noNaN: true }),
  fanout: fc.integer({ min: 1, max: 1024 }),
  rowsReadPerRead: fc.double({ min: 0, max: 1e4, noNaN: true }),
  rowsReturnedPerRead: fc.integer({ min: 0, max: 1000 }),
});

describe("clientCores", () => {
  it("grows, never shrinks, with the fan-out (rows read held or growing), at every end of the model, unless the rows received shrink", () => {
    fc.assert(
      fc.property(
        read,
        fc.integer({ min: 0, max: 1024 }),
        fc.double({ min: 0, max: 1e4, noNaN: true }),
        fc.constantFrom(...MODEL_ENDS),
        (base, more, moreRows, end) => {
          const wider = {
            ...base,
            fanout: base.fanout + more,
            rowsReadPerRead: base.rowsReadPerRead + moreRows,
          };
          const [narrowCost, widerCost] = [clientCores([base], end), clientCores([wider], end)];
          expect(widerCost.reads[0]!.callsPerRead).toBeGreaterThanOrEqual(narrowCost.reads[0]!.callsPerRead);
          if (clientRowsPerRead(wider) >= clientRowsPerRead(base))
            expect(widerCost.cores).toBeGreaterThanOrEqual(narrowCost.cores);
        },
      ),
    );
  });

  it("can cost less with one more bucket when each bucket's first-round share steps down (latest-5: 30 buckets × 4 rows, 31 × 3)", () => {
    const latest5 = {
      name: "r",
      kind: "latest",
      perS: 1,
      rowsReadPerRead: 0,
      rowsReturnedPerRead: 5,
    } as const;
    const [on30, on31] = [
      { ...latest5, fanout: 30 },
      { ...latest5, fanout: 31 },
    ];
    expect([clientRowsPerRead(on30), clientRowsPerRead(on31)]).toEqual([120, 93]);
    expect(clientCores([on31]).cores).toBeLessThan(clientCores([on30]).cores);
  });

  it("costs a limit-bound read a call per range and a bounded read one call per 128 ranges", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1024 }), (fanout) => {
        expect(callsPerRead("latest", fanout)).toBe(fanout);
        expect(callsPerRead("scan", fanout)).toBe(Math.ceil(fanout / 128));
        expect(callsPerRead("scan", fanout)).toBeLessThanOrEqual(callsPerRead("latest", fanout));
      }),
    );
    expect(callsPerRead("get", 1)).toBe(1);
  });

  it("weighs the fleet's latest-100 at 8,000 reads/s: 16 buckets cost the client more cores than one range", () => {
    const latest = (fanout: number): ClientRead => ({
      name: "latest-100",
      kind: "latest",
      perS: 8000,
      fanout,
      rowsReadPerRead: 100,
      rowsReturnedPerRead: 100,
    });
    const one = clientCores([latest(1)]);
    // 16 buckets read 16 rows each in the first round (bucketShare), 64 buckets 9 each.
    const sixteen = clientCores([latest(16)]);
    expect(sixteen.cores).toBeGreaterThan(2 * one.cores);
    expect(sixteen.reads[0]).toMatchObject({ name: "latest-100", callsPerRead: 16, rowsPerRead: 256 });
    expect(clientCores([latest(64)]).reads[0]).toMatchObject({ callsPerRead: 64, rowsPerRead: 576 });
    // Pessimistic constants never make the client cheaper.
    expect(clientCores([latest(16)], "pessimistic").cores).toBeGreaterThanOrEqual(sixteen.cores);
    expect(clientCores([latest(16)], "optimistic").cores).toBeLessThanOrEqual(sixteen.cores);
  });

  it("takes a scenario's own measured costs over the constants", () => {
    const cost = clientCores(
      [{ name: "w", kind: "scan", perS: 1000, fanout: 16, rowsReadPerRead: 100, rowsReturnedPerRead: 100 }],
      "default",
      {
        cpuMsPerCall: 1,
        cpuUsPerRow: 10,
      },
    );
    // 1000/s × (1 call × 1 ms + 100 rows × 10 µs) = 2 cores.
    expect(cost.cores).toBeCloseTo(2, 9);
  });
});
