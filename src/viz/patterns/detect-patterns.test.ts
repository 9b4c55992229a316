import { describe, expect, it } from "vitest";
import { expectGolden } from "../../../test/golden.js";
import type { LoadStep } from "../../load/key-load.js";
import { type SyntheticPattern, syntheticAccess } from "../input/synthetic-access.js";
import { matrixFromRecords } from "../matrix/records-matrix.js";
import { matrixFromSteps } from "../matrix/steps-matrix.js";
import { detectPatterns } from "./detect-patterns.js";
import type { PatternFinding, PatternKind } from "./finding.js";
import { findingRule, findingSummary } from "./finding-text.js";
import { RULES } from "./rules.js";

const expected: Record<SyntheticPattern, PatternKind> = {
  healthy: "healthy",
  "hot-band": "hot-band",
  diagonal: "diagonal",
  periodic: "periodic",
  sudden: "sudden-hot-range",
  vertical: "vertical-band",
};

/** Findings as the heatmap command prints them, for golden files. */
function findingsText(title: string, found: readonly PatternFinding[]): string {
  return `${title}:\n${found.map((finding) => `- ${findingSummary(finding)}\n  rule: ${findingRule(finding)}\n`).join("")}`;
}

function findings(pattern: SyntheticPattern, seed = 1) {
  const matrix = matrixFromRecords([...syntheticAccess(pattern, { records: 30_000, seed })], {
    maxRows: 200,
    maxColumns: 120,
  });
  return detectPatterns(matrix);
}

describe("detectPatterns on synthetic access logs", () => {
  for (const [pattern, kind] of Object.entries(expected) as [SyntheticPattern, PatternKind][]) {
    it(`classifies ${pattern} as ${kind} and nothing else`, () => {
      for (const seed of [1, 2])
        expect(findings(pattern, seed).map((finding) => finding.kind)).toEqual([kind]);
    });
  }

  it("renders each pattern's findings as before", () => {
    const text = (Object.keys(expected) as SyntheticPattern[])
      .map((pattern) => findingsText(pattern, findings(pattern)))
      .join("\n");
    expectGolden(import.meta.url, "synthetic-findings.txt", text);
  });

  it("reports the hot band's key range, time span, shares and the rule's thresholds", () => {
    const [band] = findings("hot-band");
    // The synthetic band is entities 8000..8400 of 20,000 (tenant 08).
    expect(band!.start.toString() <= "t08#e0008000").toBe(true);
    expect(band!.end!.toString() >= "t08#e0008399").toBe(true);
    expect(band).toMatchObject({
      kind: "hot-band",
      keys: expect.stringMatching(/^\[t08#/),
      fromS: Date.UTC(2026, 10, 30, 6) / 1000,
      toS: Date.UTC(2026, 10, 30, 6, 10) / 1000,
      metric: "ops",
      thresholds: { minShare: RULES.hotBand.minShare, maxKeyFraction: RULES.hotBand.maxKeyFraction },
    });
    if (band?.kind !== "hot-band") throw new Error(`expected a hot band, got ${band?.kind}`);
    // About 2 % of the keys (400 of 20,000 entities) carry most of the load.
    expect(band.keyShare).toBeLessThan(RULES.hotBand.maxKeyFraction);
    expect(band.loadShare).toBeGreaterThanOrEqual(RULES.hotBand.minShare);
    expect(band.contrast).toBeGreaterThanOrEqual(RULES.hotBand.minContrast);
    expect(band.saturatedNodes).toBeUndefined();
  });

  it("dates a sudden hot range from its onset", () => {
    const [sudden] = findings("sudden");
    expect(sudden!.fromS).toBeCloseTo(Date.UTC(2026, 10, 30, 6, 5) / 1000, -1);
    expect(sudden!.start.toString().startsWith("t14#")).toBe(true);
  });
});

describe("detectPatterns on simulator output", () => {
  it("sees the fleet incident's one contiguous dark band in an unsalted design", () => {
    const tablets = 24;
    const steps: LoadStep[] = Array.from({ length: 60 }, (_, t) => ({
      t,
      durationS: 1,
      ranges: Array.from({ length: tablets }, (_, tablet) => ({
        start: tablet === 0 ? Buffer.alloc(0) : Buffer.from(`dev${String(tablet).padStart(3, "0")}`),
        end: tablet === tablets - 1 ? null : Buffer.from(`dev${String(tablet + 1).padStart(3, "0")}`),
        readsPerS: 300,
        writesPerS: tablet === 9 ? 110_000 : 3_000,
        scannedRowsPerS: 0,
        bytesPerS: 0,
        node: tablet % 12,
        nodeCpu: tablet === 9 ? 0.95 : 0.2,
      })),
    }));
    const [band, ...rest] = detectPatterns(matrixFromSteps(steps));
    expect(rest).toEqual([]);
    expect(band).toMatchObject({ kind: "hot-band", firstRow: 9, lastRow: 9 });
    expect(band).toMatchObject({
      loadShare: expect.closeTo(0.59, 2),
      keyShare: expect.closeTo(1 / 24, 2),
      saturatedNodes: { timeShare: 1, hotCpu: 0.9 },
      fromS: 0,
      toS: 60,
    });
    // One tablet of many `dev…` keys: no prefix names it alone, so the exact range does.
    expect(band!.keys).toBe("[dev009, dev010)");
    expectGolden(import.meta.url, "simulator-dark-band.txt", findingsText("dark band", [band!]));
  });

  it("measures a band in stored data when the simulator reports it, however many tablets it was split into", () => {
    // Tablets 0..7 split a hot range holding 4 % of the data; tablets 8..15 hold the other 96 %.
    const steps: LoadStep[] = Array.from({ length: 30 }, (_, t) => ({
      t,
      durationS: 1,
      ranges: Array.from({ length: 16 }, (_, tablet) => ({
        start: tablet === 0 ? Buffer.alloc(0) : Buffer.from(`k${String(tablet).padStart(2, "0")}`),
        end: tablet === 15 ? null : Buffer.from(`k${String(tablet + 1).padStart(2, "0")}`),
        readsPerS: 0,
        writesPerS: tablet < 8 ? 10_000 : 500,
        scannedRowsPerS: 0,
        bytesPerS: 0,
        storedBytes: tablet < 8 ? 5_000 : 120_000,
      })),
    }));
    const [band, ...rest] = detectPatterns(matrixFromSteps(steps));
    expect(rest).toEqual([]);
    expect(band).toMatchObject({ kind: "hot-band", firstRow: 0, lastRow: 7 });
    expect(band).toMatchObject({ keyShare: expect.closeTo(0.04, 2), loadShare: expect.closeTo(0.95, 2) });
    const withoutRowCounts = steps.map((step) => ({
      ...step,
      ranges: step.ranges.map(({ storedBytes: _, ...range }) => range),
    }));
    expect(detectPatterns(matrixFromSteps(withoutRowCounts)).map((finding) => finding.kind)).not.toContain(
      "hot-band",
    );
  });

  /** 40 tablets of even load and data; `cpuOf(tablet)` is the CPU of the node serving it. */
  function evenSteps(cpuOf: (tablet: number) => number): LoadStep[] {
    return Array.from({ length: 30 }, (_, t) => ({
      t,
      durationS: 1,
      ranges: Array.from({ length: 40 }, (_, tablet) => ({
        start: tablet === 0 ? Buffer.alloc(0) : Buffer.from(`d${String(tablet).padStart(2, "0")}`),
        end: tablet === 39 ? null : Buffer.from(`d${String(tablet + 1).padStart(2, "0")}`),
        readsPerS: 0,
        writesPerS: 1_000,
        scannedRowsPerS: 0,
        bytesPerS: 0,
        storedBytes: 1_000,
        node: tablet % 8,
        nodeCpu: cpuOf(tablet),
      })),
    }));
  }

  it("calls saturated nodes under an even load per key unevenly placed tablets, not a hot band", () => {
    // Tablets 10..29 share a few saturated nodes, but no range is brighter than another.
    const [finding, ...rest] = detectPatterns(
      matrixFromSteps(evenSteps((tablet) => (tablet >= 10 && tablet < 30 ? 1.4 : 0.3))),
    );
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({ kind: "saturated-range", firstRow: 10, lastRow: 29 });
    expect(finding).toMatchObject({
      keys: "[d10, d30)",
      keyShare: expect.closeTo(0.5, 5),
      otherCpu: expect.closeTo(0.3, 5),
      thresholds: {
        hotCpu: 0.9,
        minColumns: 0.8,
        bandMinContrast: RULES.hotBand.withSaturatedNodes.minContrast,
      },
    });
  });

  it("names the fleet incident's bright band by its prefix, not the dim ranges whose nodes it saturates", () => {
    // The fleet's `current` design: hashed device ids around one customer's `acme-` ids, which
    // hold 60 % of the data and carry 10× the load per byte. The nodes that stay saturated are
    // the ones serving hashed ranges (beside acme tablets); acme's own tablets move between nodes.
    const hashed = (index: number) => `${(index * 0x1000000 + 0x0f4f1790).toString(16).padStart(8, "0")}#`;
    const starts = [
      "",
      ...Array.from({ length: 9 }, (_, index) => hashed(index + 1)),
      ...Array.from({ length: 24 }, (_, index) => `acme-${String(index * 3750).padStart(6, "0")}#`),
      ...Array.from({ length: 6 }, (_, index) => hashed(index + 0xb1)),
    ];
    const isAcme = (index: number) => starts[index]!.startsWith("acme-");
    const steps: LoadStep[] = Array.from({ length: 60 }, (_, t) => ({
      t: t * 60,
      durationS: 60,
      ranges: starts.map((start, index) => ({
        start: Buffer.from(start),
        end: index + 1 < starts.length ? Buffer.from(starts[index + 1]!) : null,
        readsPerS: isAcme(index) ? 30_000 : 0,
        writesPerS: isAcme(index) ? 4_000 : 1_500,
        scannedRowsPerS: 0,
        bytesPerS: 0,
        storedBytes: isAcme(index) ? 2.5e9 : 2.5e9,
        node: index % 12,
        nodeCpu: isAcme(index) ? ((t + index) % 3 === 0 ? 1.3 : 0.6) : 1.4,
      })),
    }));
    const findings = detectPatterns(matrixFromSteps(steps));
    expect(findings.map((finding) => finding.kind)).toEqual(["hot-band"]);
    const [band] = findings;
    expect(band!.keys).toBe("acme-*");
    expect(band).toMatchObject({
      keyShare: expect.closeTo(0.6, 2),
      saturatedNodes: { timeShare: 1, hotCpu: 0.9 },
      fromS: 0,
      toS: 3600,
      metric: "ops",
    });
    // The prefix names the band for people; the rule keeps the exact range.
    expect([band!.start.toString(), band!.end?.toString()]).toEqual(["acme-000000#", "c04f1790#"]);
    expectGolden(import.meta.url, "simulator-acme-band.txt", findingsText("acme band", findings));
  });

  it("calls saturation everywhere a cluster too small for the load, not a hotspot", () => {
    const findings = detectPatterns(matrixFromSteps(evenSteps(() => 1.2)));
    expect(findings.map((finding) => finding.kind)).toEqual(["saturated-cluster"]);
    expect(findings[0]).toMatchObject({
      keys: "the whole key space",
      keyShare: expect.closeTo(1, 5),
      thresholds: { hotCpu: 0.9 },
    });
    expect(findings[0]).not.toHaveProperty("otherCpu");
  });

  it("stays healthy when no node reaches 90 %", () => {
    expect(detectPatterns(matrixFromSteps(evenSteps(() => 0.85))).map((finding) => finding.kind)).toEqual([
      "healthy",
    ]);
  });

  it("renders node CPU's findings as before", () => {
    const cases: [string, (tablet: number) => number][] = [
      ["uneven placement", (tablet) => (tablet >= 10 && tablet < 30 ? 1.4 : 0.3)],
      ["cluster too small", () => 1.2],
      ["below 90 %", () => 0.85],
    ];
    const text = cases
      .map(([title, cpuOf]) => findingsText(title, detectPatterns(matrixFromSteps(evenSteps(cpuOf)))))
      .join("\n");
    expectGolden(import.meta.url, "simulator-findings.txt", text);
  });
});
