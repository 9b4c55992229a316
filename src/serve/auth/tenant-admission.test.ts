import { describe, expect, it } from "vitest";
import { parseTenantQuotas, TenantAdmission, TenantQuotaError } from "./tenant-admission.js";
import { OTHER_TENANTS, TenantLabels } from "./tenant-labels.js";

describe("TenantAdmission", () => {
  it("admits a tenant's quota R in total over three replicas that each admit R/3, within 10 %", () => {
    let now = 0;
    const R = 3000;
    const replicas = Array.from(
      { length: 3 },
      () =>
        new TenantAdmission(
          { tenants: { noisy: { rate: R, burst: 600 } } },
          () => now,
          undefined,
          () => 3,
        ),
    );
    // 60 s of load at 3× the quota, in 30-point requests sent round robin (every 3.33 ms).
    let admitted = 0;
    let turn = 0;
    for (now = 0; now < 60_000; now += 10 / 3) {
      const result = replicas[turn++ % 3]!.admit(new Map([["noisy", 30]]));
      if (result.admitted) admitted += 30;
    }
    const rate = admitted / 60;
    console.log(`quota ${R} points/s over 3 replicas: admitted ${rate.toFixed(0)} points/s in total`);
    expect(Math.abs(rate - R) / R).toBeLessThan(0.1);
    expect(replicas[0]!.shares()).toEqual(new Map([["noisy", 1000]]));
  });

  it("gives a tenant whose traffic all reaches one of three replicas that replica's share only", () => {
    let now = 0;
    const admission = new TenantAdmission(
      { default: { rate: 900 } },
      () => now,
      undefined,
      () => 3,
    );
    let admitted = 0;
    for (now = 0; now < 30_000; now += 10) {
      if (admission.admit(new Map([["a", 30]])).admitted) admitted += 30;
    }
    // 300 points/s for 30 s, plus the first burst (its share, 300 points).
    expect(Math.abs(admitted - (300 * 30 + 300))).toBeLessThanOrEqual(60);
  });

  it("admits within the burst, refuses over it with Retry-After, refills at the rate", () => {
    let now = 0;
    const admission = new TenantAdmission({ default: { rate: 100, burst: 200 } }, () => now);
    expect(admission.admit(new Map([["a", 150]]))).toMatchObject({ admitted: true });
    const refused = admission.admit(new Map([["a", 100]]));
    expect(refused).toMatchObject({ admitted: false, tenant: "a", status: 429, retryAfterSeconds: 1 });
    now = 500;
    expect(admission.admit(new Map([["a", 100]]))).toMatchObject({ admitted: true });
    expect(admission.takeRefused()).toEqual(new Set(["a"]));
    expect(admission.takeRefused()).toEqual(new Set());
  });

  it("keeps tenants apart, and charges nobody when one tenant of a request is refused", () => {
    const admission = new TenantAdmission(
      { default: { rate: 10 }, tenants: { big: { rate: 1000 } } },
      () => 0,
    );
    expect(admission.admit(new Map([["big", 900]]))).toMatchObject({ admitted: true });
    expect(
      admission.admit(
        new Map([
          ["small", 5],
          ["big", 500],
        ]),
      ),
    ).toMatchObject({ admitted: false, tenant: "big" });
    expect(admission.admit(new Map([["small", 10]]))).toMatchObject({ admitted: true });
  });

  it("answers 413 for a request larger than the burst, and admits anything without a quota", () => {
    const admission = new TenantAdmission({ tenants: { a: { rate: 10, burst: 20 } } }, () => 0);
    expect(admission.admit(new Map([["a", 21]]))).toMatchObject({ status: 413 });
    expect(admission.admit(new Map([["free", 1e9]]))).toMatchObject({ admitted: true });
  });

  it("parses quota text and names bad entries", () => {
    expect(parseTenantQuotas("default=500, acme=1000:5000")).toEqual({
      default: { rate: 500 },
      tenants: { acme: { rate: 1000, burst: 5000 } },
    });
    expect(() => parseTenantQuotas("acme=fast")).toThrow(
      expect.objectContaining({ name: TenantQuotaError.name, quota: "acme=fast", field: "entry" }),
    );
    expect(() => new TenantAdmission({ default: { rate: 0 } })).toThrow(
      expect.objectContaining({ quota: "default", field: "rate", value: 0, allowed: "> 0" }),
    );
  });
});

describe("TenantAdmission and invented tenants", () => {
  it("gives tenants past the cap one shared bucket, so new names buy no quota", () => {
    const labels = new TenantLabels(["vip"], 2);
    const admission = new TenantAdmission({ default: { rate: 100 } }, () => 0, labels);
    const admit = (tenant: string, points: number) => admission.admit(new Map([[tenant, points]])).admitted;
    expect([admit("a", 100), admit("b", 100)]).toEqual([true, true]);
    expect(admit("c", 60)).toBe(true);
    // "d" is past the cap too: it shares the 100 points c took from.
    expect(admit("d", 60)).toBe(false);
    expect(labels.plan(["d"])).toEqual(new Map([["d", OTHER_TENANTS]]));
    expect(admit("vip", 100)).toBe(true);
    expect(admission.takeRefused()).toEqual(new Set([OTHER_TENANTS]));
  });

  it("takes tenant names that are also Object.prototype's for tenants", () => {
    const admission = new TenantAdmission({ default: { rate: 10 } }, () => 0);
    expect(admission.admit(new Map([["constructor", 10]]))).toMatchObject({ admitted: true });
    expect(admission.admit(new Map([["constructor", 1]]))).toMatchObject({ status: 429 });
  });

  it("gives labels only to admitted tenants: a refused request naming 1,000 invented tenants takes no slot", () => {
    const labels = new TenantLabels([], 5);
    const admission = new TenantAdmission({ default: { rate: 1, burst: 10 } }, () => 0, labels);
    const invented = new Map(Array.from({ length: 1_000 }, (_, i) => [`invented-${i}`, 1]));
    invented.set("greedy", 11);
    expect(admission.admit(invented)).toMatchObject({ admitted: false, status: 413, tenant: OTHER_TENANTS });
    expect(admission.admit(new Map([["fresh", 1]]))).toEqual({
      admitted: true,
      perLabel: new Map([["fresh", 1]]),
    });
    expect(labels.plan(["a", "b", "c", "d", "e"]).get("e")).toBe(OTHER_TENANTS);
    expect(labels.plan(["a", "b", "c", "d"]).get("d")).toBe("d");
  });
});
