import { describe, expect, it } from "vitest";
import { parseQuotas, TenantAdmission } from "./tenant-admission.js";

describe("TenantAdmission", () => {
  it("admits within the burst, refuses over it with Retry-After, refills at the rate", () => {
    let now = 0;
    const admission = new TenantAdmission({ default: { rate: 100, burst: 200 } }, () => now);
    expect(admission.admit(new Map([["a", 150]]))).toEqual({ admitted: true });
    const refused = admission.admit(new Map([["a", 100]]));
    expect(refused).toMatchObject({ admitted: false, tenant: "a", status: 429, retryAfterSeconds: 1 });
    now = 500;
    expect(admission.admit(new Map([["a", 100]]))).toEqual({ admitted: true });
    expect(admission.takeRefused()).toEqual(new Set(["a"]));
    expect(admission.takeRefused()).toEqual(new Set());
  });

  it("keeps tenants apart, and charges nobody when one tenant of a request is refused", () => {
    const admission = new TenantAdmission(
      { default: { rate: 10 }, tenants: { big: { rate: 1000 } } },
      () => 0,
    );
    expect(admission.admit(new Map([["big", 900]]))).toEqual({ admitted: true });
    expect(
      admission.admit(
        new Map([
          ["small", 5],
          ["big", 500],
        ]),
      ),
    ).toMatchObject({ admitted: false, tenant: "big" });
    expect(admission.admit(new Map([["small", 10]]))).toEqual({ admitted: true });
  });

  it("answers 413 for a request larger than the burst, and admits anything without a quota", () => {
    const admission = new TenantAdmission({ tenants: { a: { rate: 10, burst: 20 } } }, () => 0);
    expect(admission.admit(new Map([["a", 21]]))).toMatchObject({ status: 413 });
    expect(admission.admit(new Map([["free", 1e9]]))).toEqual({ admitted: true });
  });

  it("parses quota text and names bad entries", () => {
    expect(parseQuotas("default=500, acme=1000:5000")).toEqual({
      default: { rate: 500 },
      tenants: { acme: { rate: 1000, burst: 5000 } },
    });
    expect(() => parseQuotas("acme=fast")).toThrow(/quota "acme=fast": expected TENANT=RATE/);
    expect(() => new TenantAdmission({ default: { rate: 0 } })).toThrow(/quota default: rate 0/);
  });
});
