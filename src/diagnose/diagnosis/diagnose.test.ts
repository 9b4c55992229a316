import { describe, expect, it } from "vitest";
import { expectGolden } from "../../../test/golden.js";
import { parseWorkloadRates } from "../../advise/infer/rates.js";
import { parseScenario } from "../../sim/scenario/scenario.js";
import { SCHEMA_ROW_KEY } from "../../table/schema-guard.js";
import { hotTablet } from "../decode/fixtures.testsuite.js";
import { incidentHotTablets, incidentKeySample, incidentSchema } from "../gather/incident.testsuite.js";
import { diagnoseJson } from "../report/report-json.js";
import { diagnoseText } from "../report/report-text.js";
import { scenarioYaml } from "../report/scenario-file.js";
import { diagnoseEvidence, type TableEvidence } from "./diagnose.js";
import { DiagnoseRefusal } from "./refusal.js";

const heat = {
  kind: "hot-tablets",
  cluster: "metrics-c1",
  start: new Date("2026-03-02T00:00:00Z"),
  end: new Date("2026-03-03T00:00:00Z"),
} as const;

const incident = (keySample: Buffer[]): TableEvidence => ({
  store: "bigtable",
  table: "device-metrics",
  heat,
  hotTablets: incidentHotTablets,
  keySample,
});

describe("diagnoseEvidence: the fleet incident", () => {
  const sample = incidentKeySample(3000);
  const report = diagnoseEvidence(incidentSchema, incident(sample), { nodes: 12 });

  it("decodes each hot range into the acme devices it covers, with its CPU and recurrences", () => {
    expect(report.hotRanges).toHaveLength(4);
    const starts = report.hotRanges.map(
      (range) => range.start.kind === "decoded" && range.start.values.deviceID,
    );
    expect([...starts].sort()).toEqual(["acme-000000", "acme-022500", "acme-045000", "acme-067500"]);
    for (const range of report.hotRanges) {
      expect(range.windows).toHaveLength(3);
      expect(range.maxCpuPercent).toBeGreaterThanOrEqual(95);
      const device = range.fields.find((span) => span.field === "deviceID")!;
      expect(device.distinct).toBeGreaterThan(100);
      expect(device.min.startsWith("acme-")).toBe(true);
    }
  });

  it("is a wide hot range of many keys: capacity, not the key", () => {
    expect(report.diagnosis).toMatchObject({ kind: "wide-hot-range", remedy: "capacity-not-the-key" });
    const share = report.diagnosis.facts.find((fact) => fact.kind === "hot-share-of-sample");
    expect(share).toMatchObject({ share: expect.closeTo(0.62, 1) });
  });

  it("writes a scenario whose current design is the sampled key, at the rate the hot tablets imply at their peak", () => {
    expect(report.scenarioProblem).toBeUndefined();
    const scenario = parseScenario(scenarioYaml(report.scenario!));
    expect(scenario.cluster.nodes).toBe(12);
    expect(scenario.designs[0]!.name).toBe("as-is");
    const writes = scenario.workload.groups.reduce((sum, group) => sum + group.writesPerS, 0);
    // The peak window (14:00–14:15): 4 ranges at 95, 94, 96 and 93 % of a node's 14,000 writes/s —
    // one window, not each range's hottest window (96, 95, 96, 95) nor the three windows summed.
    expect(writes).toBeCloseTo((0.95 + 0.94 + 0.96 + 0.93) * 14_000, -1);
    // The hot ranges' writers are groups of their own at the rate their CPU stood for.
    const hot = scenario.workload.groups.filter((group) => group.name.startsWith("hot range"));
    expect(hot.map((group) => Math.round(group.writesPerS)).sort()).toEqual(
      [0.93, 0.94, 0.95, 0.96].map((cpu) => Math.round(cpu * 14_000)).sort(),
    );
    // A wide range's load is the nodes' to share: the lab calibrates to its mean over them.
    expect(scenario.observed).toEqual({ nodes: 12, averageCpu: 3.78 / 12 });
  });

  it("takes the rates the user gives over the implied ones", () => {
    const given = diagnoseEvidence(incidentSchema, incident(sample), {
      nodes: 12,
      rates: parseWorkloadRates("writes=180000,latest-100=8000"),
      rowBytes: 256,
    });
    const writes = given.scenario!.workload.groups.reduce((sum, group) => sum + group.writesPerS, 0);
    expect(writes).toBeCloseTo(180_000, -1);
    expect(given.scenario!.workload.reads).toHaveLength(1);
    expect(given.scenario!.workload.rowBytes).toBe(256);
    // Given rates add writes the hot tablets do not measure: their sum is no longer the nodes' mean.
    expect(given.scenario!.observed).toBeUndefined();
  });

  it("counts keys the schema cannot decode and keeps going", () => {
    const foreign = [Buffer.from([0xff, 0xfe]), Buffer.from("no-separator-here")];
    const mixed = diagnoseEvidence(incidentSchema, incident([...sample, ...foreign]), { nodes: 12 });
    // A text key reads as text; a binary one as hex only.
    expect(mixed.sample.undecoded).toEqual({
      count: 2,
      examples: [{ hex: "fffe" }, { hex: foreign[1]!.toString("hex"), text: "no-separator-here" }],
    });
    expect(mixed.diagnosis.kind).toBe("wide-hot-range");
  });

  it("renders as text and as JSON with keys in hex", () => {
    expect(diagnoseText(report)).toContain("acme-000000");
    expectGolden(
      import.meta.url,
      "fleet-incident.txt",
      diagnoseText(report, { scenarioPath: "out/scenario.yaml", notes: ["sample-timed-out"] }),
    );
    const json = JSON.parse(diagnoseJson(report));
    expect(json.hotRanges[0].startKey).toMatch(/^[0-9a-f]+$/);
    expect(json.diagnosis.kind).toBe("wide-hot-range");
  });
});

describe("diagnoseEvidence: other shapes", () => {
  it("no hot tablet in the window: says so, and asks for rates to model", () => {
    const report = diagnoseEvidence(
      incidentSchema,
      { ...incident(incidentKeySample(200)), hotTablets: [] },
      { nodes: 3 },
    );
    expect(report.diagnosis.kind).toBe("no-hot-tablets");
    expect(report.scenario).toBeUndefined();
    expect(report.scenarioProblem).toEqual({ kind: "no-rates" });
  });

  it("an empty table has no key to model", () => {
    const key = Buffer.from("acme-000001#1");
    const report = diagnoseEvidence(
      incidentSchema,
      { ...incident([]), hotTablets: [hotTablet(key, key, 99)] },
      { nodes: 3 },
    );
    expect(report.diagnosis.kind).toBe("one-hot-row");
    expect(report.scenarioProblem).toEqual({ kind: "empty-sample" });
  });
});

describe("diagnoseEvidence: evidence that does not fit", () => {
  const sample = incidentKeySample(400);
  const foreign = Array.from({ length: 500 }, (_, i) => Buffer.from(`order/${i}`));

  it("refuses a schema most sampled keys do not decode under, unless forced", () => {
    const refusal = (() => {
      try {
        diagnoseEvidence(incidentSchema, incident([...sample, ...foreign]), { nodes: 12 });
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(DiagnoseRefusal);
    expect(refusal).toMatchObject({
      code: "schema-does-not-fit",
      forcible: true,
      details: { undecoded: 500, keys: 900 },
    });
    const forced = diagnoseEvidence(incidentSchema, incident([...sample, ...foreign]), {
      nodes: 12,
      force: true,
    });
    expect(forced.forced.map((each) => each.code)).toEqual(["schema-does-not-fit"]);
    expect(forced.sample.undecoded.count).toBe(500);
  });

  it("refuses a schema whose fingerprint differs from the one the table records, unless forced", () => {
    const recorded = { ...incident(sample), schemaFingerprint: "ks1-another" };
    expect(() => diagnoseEvidence(incidentSchema, recorded, { nodes: 12 })).toThrow(
      expect.objectContaining({
        code: "schema-fingerprint-differs",
        details: { recorded: "ks1-another", given: incidentSchema.fingerprint },
      }),
    );
    expect(diagnoseEvidence(incidentSchema, recorded, { nodes: 12, force: true }).forced).toHaveLength(1);
    const same = { ...incident(sample), schemaFingerprint: incidentSchema.fingerprint };
    expect(diagnoseEvidence(incidentSchema, same, { nodes: 12 }).forced).toEqual([]);
  });

  it("leaves keyspread's own schema row out of the sample: reserved, not undecodable", () => {
    const report = diagnoseEvidence(incidentSchema, incident([...sample, SCHEMA_ROW_KEY]), { nodes: 12 });
    expect(report.sample).toMatchObject({ keys: 400, reserved: 1, undecoded: { count: 0 } });
  });

  it("refuses hot tablets the cluster's nodes could not have carried at once, with the arithmetic", () => {
    expect(() => diagnoseEvidence(incidentSchema, incident(sample), { nodes: 3 })).toThrow(
      expect.objectContaining({
        code: "peak-exceeds-nodes",
        details: expect.objectContaining({ totalCpuPercent: 378, nodes: 3, hotTablets: 4 }),
      }),
    );
  });

  it("refuses given rates below what the hot ranges alone carried", () => {
    const report = diagnoseEvidence(incidentSchema, incident(sample), {
      nodes: 12,
      rates: parseWorkloadRates("writes=1000"),
    });
    expect(report.scenario).toBeUndefined();
    // 4 ranges at 95, 94, 96 and 93 % of a node's 14,000 writes/s at the peak.
    expect(report.scenarioProblem).toEqual({
      kind: "rates-below-hot-ranges",
      givenWritesPerS: 1000,
      hotWritesPerS: expect.closeTo(52_920, 6),
      nodeWritesPerS: expect.closeTo(14_000, 6),
    });
    expectGolden(import.meta.url, "fleet-incident-low-rates.txt", diagnoseText(report).split("## ")[1] ?? "");
  });
});
