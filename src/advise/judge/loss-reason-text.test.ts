// The sentences the reports print for why a design loses, from its facts (the wording itself).
import { describe, expect, it } from "vitest";
import { lossReasonText } from "./loss-reason-text.js";

describe("why a design loses, in words", () => {
  it("says what it missed, measured against the limit, and what more nodes would do", () => {
    expect(
      lossReasonText({
        code: "needs-more-nodes",
        missed: ["averageCpu", "shed"],
        failures: [
          { target: "averageCpu", cpu: 0.8, limit: 0.7 },
          { target: "shed", share: 0.03, limit: 0.01 },
        ],
        nodesNeeded: 14,
      }),
    ).toBe("average node 80% > 70%; 3% of writes shed; would need 14 nodes at today's rate");
    expect(
      lossReasonText({
        code: "misses-at-growth",
        missed: ["hottestCpu"],
        failures: [{ target: "hottestCpu", cpu: 1.5, limit: 0.9 }],
        growth: 2,
        writesPerS: 40_000,
        breaksAtWritesPerS: 26_100,
      }),
    ).toBe(
      "meets the targets today but not at the stated growth, 2× (40,000 writes/s): hottest node 150% > 90%; it breaks at about 26,000 writes/s",
    );
  });

  it("says what a design that meets the targets is compared on", () => {
    expect(lossReasonText({ code: "more-client-cores", missed: [], loser: 150, chosen: 40 })).toBe(
      "meets the targets but its reads need 150 application cores on the client against 40",
    );
    expect(lossReasonText({ code: "wider-fan-out", missed: [], loser: 16, chosen: 1 })).toBe(
      "meets the targets but reads fan out wider (×16 vs ×1)",
    );
  });
});
