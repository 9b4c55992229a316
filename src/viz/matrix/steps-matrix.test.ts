import { describe, expect, it } from "vitest";
import { compileSchema } from "../../keys/schema.js";
import type { KeyRangeLoad, LoadStep } from "../../load/key-load.js";
import { heatCellValue } from "./heat-matrix.js";
import { matrixFromSteps } from "./steps-matrix.js";

function range(start: string, end: string | null, load: Partial<KeyRangeLoad>): KeyRangeLoad {
  return {
    start: Buffer.from(start),
    end: end === null ? null : Buffer.from(end),
    readsPerS: 0,
    writesPerS: 0,
    scannedRowsPerS: 0,
    bytesPerS: 0,
    ...load,
  };
}

describe("matrixFromSteps", () => {
  it("keeps one row per range and one column per step, as rates", () => {
    const steps: LoadStep[] = [0, 1, 2].map((t) => ({
      t,
      durationS: 1,
      ranges: [
        range("", "m", { readsPerS: 10, writesPerS: 5, scannedRowsPerS: 100, bytesPerS: 1000, nodeCpu: 0.5 }),
        range("m", null, { writesPerS: 1000 * (t + 1), nodeCpu: 0.95 }),
      ],
    }));
    const matrix = matrixFromSteps(steps);
    expect(matrix.time).toMatchObject({ startS: 0, columnS: 1, columns: 3, epoch: false });
    expect(matrix.rows.map((row) => [row.start.toString(), row.end?.toString() ?? null])).toEqual([
      ["", "m"],
      ["m", null],
    ]);
    expect(heatCellValue(matrix, "reads", 0, 1)).toBe(110);
    expect(heatCellValue(matrix, "ops", 0, 1)).toBe(115);
    expect(heatCellValue(matrix, "bytes", 0, 2)).toBe(1000);
    expect(heatCellValue(matrix, "writes", 1, 2)).toBe(3000);
    expect(heatCellValue(matrix, "cpu", 1, 0)).toBeCloseTo(0.95);
    expect(matrix.values.latency).toBeUndefined();
  });

  it("averages steps into wider columns and splits a range's rate over the bins it spans", () => {
    const steps: LoadStep[] = [0, 1, 2, 3].map((t) => ({
      t,
      durationS: 1,
      // The split at "m" appears at t=2: before it, one range covers both bins.
      ranges:
        t < 2
          ? [range("", null, { writesPerS: 100 })]
          : [range("", "m", { writesPerS: 100 }), range("m", null, { writesPerS: 300 })],
    }));
    const matrix = matrixFromSteps(steps, { maxColumns: 2 });
    expect(matrix.time.columnS).toBe(2);
    expect(heatCellValue(matrix, "writes", 0, 0)).toBe(50);
    expect(heatCellValue(matrix, "writes", 1, 0)).toBe(50);
    expect(heatCellValue(matrix, "writes", 0, 1)).toBe(100);
    expect(heatCellValue(matrix, "writes", 1, 1)).toBe(300);
  });

  it("merges cold ranges within a salt bucket but not across buckets", () => {
    const keys = ["0#a", "0#b", "0#c", "0#d", "1#a", "1#b", "1#c", "1#d"];
    const steps: LoadStep[] = [
      {
        t: 0,
        durationS: 1,
        ranges: keys.map((key, index) =>
          range(key, keys[index + 1] ?? null, { writesPerS: key === "0#b" ? 1000 : 1 }),
        ),
      },
    ];
    const matrix = matrixFromSteps(steps, { maxRows: 8 });
    expect(matrix.rows.length).toBeLessThanOrEqual(8);
    const starts = matrix.rows.map((row) => row.start.toString());
    expect(starts).toContain("0#b");
    expect(starts).toContain("1#");
    const total = matrix.rows.reduce((sum, _, row) => sum + heatCellValue(matrix, "writes", row, 0), 0);
    expect(total).toBeCloseTo(1007);
  });

  it("names a bad step", () => {
    expect(() => matrixFromSteps([{ t: 0, durationS: 0, ranges: [] }])).toThrow(/steps\[0\].*durationS > 0/);
    expect(() => matrixFromSteps([])).toThrow(
      expect.objectContaining({ name: "VizArgumentError", argument: "steps", value: 0 }),
    );
  });

  it("names rows through the design's schema, with the same rows and values as without it", () => {
    const schema = compileSchema({
      version: 1,
      name: "salted",
      layout: "text",
      salt: { buckets: 16, fields: ["deviceID"] },
      segments: [
        { field: "deviceID", codec: { type: "string" } },
        { field: "ts", codec: { type: "timestamp", unit: "ms", reverse: true } },
      ],
    });
    // Split points as the simulator cuts them: a device id's first bytes, then binary bytes.
    const starts = ["", "03#", "03#acme-0037\x1c\x19", "03#acme-0039\x05", "04#"];
    const steps: LoadStep[] = [0, 1].map((t) => ({
      t,
      durationS: 1,
      ranges: starts.map((start, index) =>
        range(start, starts[index + 1] ?? null, { writesPerS: index === 2 ? 5000 : 10 }),
      ),
    }));
    const plain = matrixFromSteps(steps);
    const named = matrixFromSteps(steps, { naming: schema });
    expect(named.values).toEqual(plain.values);
    expect(named.rows.map(({ name, labels, ...rest }) => rest)).toEqual(
      plain.rows.map(({ name, labels, ...rest }) => rest),
    );
    expect(named.rows.map((row) => row.name)).toEqual([
      "…–b03",
      "b03 · …–acme-0037…",
      "b03 · acme-0037…–acme-0039…",
      "b03–b04",
      "b04",
    ]);
    expect(named.rows[2]!.labels).toEqual(["b03", "acme-0037…"]);
    expect(plain.rows.every((row) => row.name === undefined)).toBe(true);
  });
});
