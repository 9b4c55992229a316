import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CostModel, rangeReadCost, readServiceMs, scannedRowCost, writeCost } from "./cluster.js";
import { MODEL_CONSTANTS } from "./model-constants.js";

const ssdCapacity = { writesPerS: 14_000, readsPerS: 17_000, scanBytesPerS: 220e6 };
const model = (fixedCostShare: number, scanFixedCostShare = fixedCostShare, readSeekMs = 0): CostModel => ({
  capacity: ssdCapacity,
  fixedCostShare,
  scanFixedCostShare,
  readSeekMs,
});
const { fixedCostShare, scanFixedCostShare, hddSeekMs } = MODEL_CONSTANTS;
/** Every end of the shares' ranges, and the default. */
const shareEnds = [...new Set([fixedCostShare.low, fixedCostShare.value, fixedCostShare.high])];
const scanShareEnds = [
  ...new Set([scanFixedCostShare.low, scanFixedCostShare.value, scanFixedCostShare.high]),
];
const rowBytes = fc.integer({ min: 1, max: 256 * 1024 * 1024 });

describe("node cost", () => {
  it("makes a 1 KB row cost exactly the published per-node rate at every share", () => {
    for (const share of shareEnds) {
      expect(writeCost(1024, model(share)) * 14_000).toBeCloseTo(1);
      expect(rangeReadCost(1, 1024, model(share)) * 17_000).toBeCloseTo(1);
      // 220 MB of 1 KB rows scanned cost one node-second on top of the first row.
      expect(rangeReadCost(1 + 220e6 / 1024, 1024, model(share))).toBeCloseTo(1 + 1 / 17_000);
    }
  });

  it("never makes a row cheaper per byte than a 1 KB row, and per byte never dearer as it grows, at either end", () => {
    const perByte = (bytes: number, share: number) => ({
      write: writeCost(bytes, model(share)) / bytes,
      read: rangeReadCost(1, bytes, model(share)) / bytes,
      scanned: scannedRowCost(bytes, model(share)) / bytes,
    });
    for (const share of [...shareEnds, ...scanShareEnds]) {
      const kilobyte = perByte(1024, share);
      fc.assert(
        fc.property(rowBytes, rowBytes, (a, b) => {
          const [small, large] = [Math.min(a, b), Math.max(a, b)];
          for (const kind of ["write", "read", "scanned"] as const) {
            expect(perByte(large, share)[kind]).toBeGreaterThanOrEqual(kilobyte[kind] * (1 - 1e-12));
            expect(perByte(large, share)[kind]).toBeLessThanOrEqual(
              perByte(small, share)[kind] * (1 + 1e-12),
            );
          }
        }),
      );
    }
    // A 100 KB row costs a hundred 1 KB rows at the optimistic end too, not one.
    expect(writeCost(100 * 1024, model(fixedCostShare.high)) * 14_000).toBeCloseTo(100);
  });

  it("costs a row under 1 KB more at the pessimistic end of the fixed share than at the optimistic one", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1023 }), (bytes) => {
        const pessimistic = fixedCostShare.worse === "high" ? fixedCostShare.high : fixedCostShare.low;
        const optimistic = fixedCostShare.worse === "high" ? fixedCostShare.low : fixedCostShare.high;
        expect(writeCost(bytes, model(pessimistic))).toBeGreaterThan(writeCost(bytes, model(optimistic)));
      }),
    );
  });

  it("charges every scanned row at least its per-row term, so scanning N rows costs at least N × the term", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 64 * 1024 }),
        fc.constantFrom(...scanShareEnds),
        (rows, bytes, share) => {
          const costModel = model(fixedCostShare.value, share);
          const perRowTerm = (share * 1024) / ssdCapacity.scanBytesPerS;
          const scanned = rangeReadCost(rows + 1, bytes, costModel) - rangeReadCost(1, bytes, costModel);
          expect(scanned).toBeGreaterThanOrEqual(rows * perRowTerm * (1 - 1e-12));
          expect(scanned).toBeGreaterThanOrEqual(((rows * bytes) / ssdCapacity.scanBytesPerS) * (1 - 1e-12));
        },
      ),
    );
  });

  it("streams small rows no faster than 1 KB rows when the per-row term dominates (220 MB/s of 1 KB ≈ 215,000 rows/s)", () => {
    const perRow = model(fixedCostShare.value, 1);
    expect(1 / scannedRowCost(256, perRow)).toBeCloseTo(220e6 / 1024);
    expect(scannedRowCost(256, model(fixedCostShare.value, scanFixedCostShare.low))).toBeLessThan(
      scannedRowCost(256, perRow),
    );
  });

  it("makes an HDD read wait for its seek before the first row, an SSD read not", () => {
    for (const seek of [hddSeekMs.low, hddSeekMs.value, hddSeekMs.high]) {
      const hdd = model(0.5, 0.5, seek);
      expect(readServiceMs(1, 1024, hdd)).toBeGreaterThan(readServiceMs(1, 1024, model(0.5)));
      expect(readServiceMs(100, 1024, hdd) - readServiceMs(100, 1024, model(0.5))).toBeCloseTo(seek);
    }
  });
});
