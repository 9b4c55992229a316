import { describe, expect, it } from "vitest";
import { describeProblem, LiveMigrationError } from "./live-migration-error.js";

/** The wording itself: each problem's sentence names the values and what to do next. */
describe("a live migration problem's message", () => {
  it("names the phase a record is in, the one expected, and that nothing changed", () => {
    const error = new LiveMigrationError({
      code: "wrong-phase",
      migration: "m.json",
      phase: "single",
      expected: "dual-write",
      revision: 2,
      setAt: "2026-01-01T00:00:00.000Z",
    });
    expect(error.code).toBe("wrong-phase");
    expect(error.message).toBe(
      "migration m.json is in phase single, not dual-write (revision 2, set 2026-01-01T00:00:00.000Z); nothing changed",
    );
  });

  it("names a refused step, its reason and the way past the guard", () => {
    expect(
      describeProblem({
        code: "refused",
        from: "dual-write",
        to: "reads-on-new",
        refusal: { reason: "not-validated", validation: { kind: "differences", differences: 2 } },
      }),
    ).toBe(
      "dual-write → reads-on-new refused: reads move to the new table only after keyspread migrate validate found 0 differences in this dual-write period (the last validation found 2 difference(s)) (--force to move anyway)",
    );
  });

  it("names each replica behind and why", () => {
    expect(
      describeProblem({
        code: "replicas-not-applied",
        phase: "dual-write",
        revision: 1,
        seconds: 5,
        live: 2,
        behind: [{ replica: "r2", host: "h", pid: 7 }],
      }),
    ).toBe(
      "recorded dual-write (revision 1), but 1 of 2 live replica(s) have not applied it within 5 s: replica r2 (host h, process 7): no report (is it started with --migration naming this record?). A replica applies it when it starts; do not go on with the runbook until every one has (keyspread migrate status)",
    );
  });

  it("names the phases a step skips", () => {
    expect(
      describeProblem({
        code: "not-one-step",
        from: "writes-on-new",
        to: "single",
        skipped: ["dual-write", "reads-on-new"],
      }),
    ).toBe(
      "writes-on-new → single skips back over dual-write, reads-on-new: move one phase at a time (single → dual-write → reads-on-new → writes-on-new → done)",
    );
  });
});
