import { describe, expect, it } from "vitest";
import { AlertEvaluator } from "./alerts.js";

const none = new Set<string>();
const even = [10, 10, 10, 10];
const oneHot = [10, 10, 50, 10];

describe("AlertEvaluator", () => {
  it("fires bucket-hot only after the bucket stays above 2× the median for the window", () => {
    const alerts = new AlertEvaluator({ sustainMs: 3000, minWindowLoad: 1 });
    expect(alerts.evaluate({ nowMs: 0, bucketLoad: oneHot, tenantsOverQuota: none })).toEqual([]);
    expect(alerts.evaluate({ nowMs: 2000, bucketLoad: oneHot, tenantsOverQuota: none })).toEqual([]);
    const [fired] = alerts.evaluate({ nowMs: 3000, bucketLoad: oneHot, tenantsOverQuota: none });
    expect(fired).toMatchObject({ rule: "bucket-hot", subject: "2", state: "firing", sinceMs: 3000 });
    expect(fired?.figures).toEqual({ load: 50, median: 10, factor: 2, forS: 3 });
    expect(alerts.active()).toHaveLength(1);
    const [resolved] = alerts.evaluate({ nowMs: 4000, bucketLoad: even, tenantsOverQuota: none });
    expect(resolved).toMatchObject({ rule: "bucket-hot", subject: "2", state: "resolved" });
  });

  it("judges simulated nodes the same way, apart from buckets", () => {
    const alerts = new AlertEvaluator({ sustainMs: 0, minWindowLoad: 1 });
    const changes = alerts.evaluate({
      nowMs: 0,
      bucketLoad: even,
      nodeLoad: [90, 10, 10],
      tenantsOverQuota: none,
    });
    expect(changes).toMatchObject([{ rule: "node-hot", subject: "0", state: "firing" }]);
    expect(changes[0]!.message).toMatch(/^node 0 took 90 writes/);
  });

  it("restarts the streak when the bucket cools down in between", () => {
    const alerts = new AlertEvaluator({ sustainMs: 2000, minWindowLoad: 1 });
    alerts.evaluate({ nowMs: 0, bucketLoad: oneHot, tenantsOverQuota: none });
    alerts.evaluate({ nowMs: 1000, bucketLoad: even, tenantsOverQuota: none });
    expect(alerts.evaluate({ nowMs: 2000, bucketLoad: oneHot, tenantsOverQuota: none })).toEqual([]);
  });

  it("does not judge buckets on too little traffic", () => {
    const alerts = new AlertEvaluator({ sustainMs: 0, minWindowLoad: 1000 });
    expect(alerts.evaluate({ nowMs: 0, bucketLoad: oneHot, tenantsOverQuota: none })).toEqual([]);
  });

  it("fires prefix-shift when the mix of hot prefixes moves, and resolves when it settles", () => {
    const alerts = new AlertEvaluator({ shiftThreshold: 0.3 });
    const calm = new Map([
      ["a", 0.2],
      ["b", 0.2],
    ]);
    const taken = new Map([
      ["a", 0.7],
      ["b", 0.05],
    ]);
    const at = (nowMs: number, prefixShares: Map<string, number>) =>
      alerts.evaluate({ nowMs, bucketLoad: [], prefixShares, tenantsOverQuota: none });
    expect(at(0, calm)).toEqual([]);
    const [fired] = at(1, taken);
    expect(fired).toMatchObject({ rule: "prefix-shift", subject: "*", state: "firing" });
    expect(fired?.figures).toMatchObject({ threshold: 0.3, topPrefix: "a", topShare: 0.7 });
    expect(at(2, taken)).toMatchObject([{ rule: "prefix-shift", state: "resolved" }]);
  });

  it("fires and resolves tenant-over-quota per tenant", () => {
    const alerts = new AlertEvaluator();
    expect(alerts.evaluate({ nowMs: 0, bucketLoad: [], tenantsOverQuota: new Set(["noisy"]) })).toMatchObject(
      [{ rule: "tenant-over-quota", subject: "noisy", state: "firing" }],
    );
    expect(alerts.evaluate({ nowMs: 1, bucketLoad: [], tenantsOverQuota: new Set(["noisy"]) })).toEqual([]);
    expect(alerts.evaluate({ nowMs: 2, bucketLoad: [], tenantsOverQuota: none })).toMatchObject([
      { subject: "noisy", state: "resolved" },
    ]);
  });

  it("names a bad rule setting", () => {
    expect(() => new AlertEvaluator({ bucketFactor: -1 })).toThrow(
      expect.objectContaining({ name: "AlertRuleError", rule: "bucketFactor", value: -1 }),
    );
  });

  it("fires dead-letter for a window with dead letters, and resolves after a clean one", () => {
    const alerts = new AlertEvaluator();
    expect(
      alerts.evaluate({ nowMs: 0, bucketLoad: [], tenantsOverQuota: none, deadLetters: 2 }),
    ).toMatchObject([
      { rule: "dead-letter", subject: "*", state: "firing", message: expect.stringMatching(/^2 rows/) },
    ]);
    expect(alerts.evaluate({ nowMs: 1, bucketLoad: [], tenantsOverQuota: none })).toMatchObject([
      { rule: "dead-letter", state: "resolved" },
    ]);
  });
});
