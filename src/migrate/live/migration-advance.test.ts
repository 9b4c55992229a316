import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AdvanceRefusal, LiveMigrationProblem } from "./live-migration-error.js";
import { advanceMigration } from "./migration-advance.js";
import {
  checkStep,
  MIGRATION_PHASES,
  type MigrationPhase,
  phaseReadSide,
  phaseWriteSides,
} from "./migration-phases.js";
import type { MigrationRecord, ServiceStatus } from "./migration-record.js";

const file = "m.json";

/** Matches the LiveMigrationError a call throws by its problem's fields. */
const problem = (fields: Partial<LiveMigrationProblem>) =>
  expect.objectContaining({ name: "LiveMigrationError", problem: expect.objectContaining(fields) });
/** Matches an advance refused by its guard, by the refusal's fields. */
const refusal = (fields: AdvanceRefusal) => problem({ code: "refused", refusal: fields });
const table = (address: string) => ({ address, spec: {}, fingerprint: `fp-${address}` });

function record(phase: MigrationPhase, service: Partial<ServiceStatus> | null = {}): MigrationRecord {
  return {
    format: "keyspread-migration/1",
    old: table("embedded:/t/old"),
    new: table("embedded:/t/new"),
    phase,
    revision: 3,
    history: [
      {
        revision: 3,
        from: MIGRATION_PHASES[Math.max(0, MIGRATION_PHASES.indexOf(phase) - 1)]!,
        to: phase,
        at: "2026-01-01T00:00:00.000Z",
      },
    ],
    ...(service === null
      ? {}
      : {
          service: {
            pid: 1,
            host: "h",
            wal: "w",
            revision: 3,
            phase,
            applied: true,
            completeBelow: 100,
            updatedAt: "2026-01-01T00:00:00.000Z",
            ...(phase === "dual-write" || phase === "reads-on-new" ? { dualWriteFrom: 50 } : {}),
            ...service,
          },
        }),
  };
}

const cleanValidation = {
  id: "v1",
  state: "complete" as const,
  sample: 100,
  rowsPerEntity: 100,
  ranges: 16,
  cut: 90,
  dualWriteFrom: 50,
  differences: 0,
  requestedAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
};

describe("migration phases", () => {
  it("write both tables from dual-write until writes move, and read the new one from reads-on-new", () => {
    expect(MIGRATION_PHASES.map((phase) => [phaseWriteSides(phase).join("+"), phaseReadSide(phase)])).toEqual(
      [
        ["old", "old"],
        ["old+new", "old"],
        ["old+new", "new"],
        ["new", "new"],
        ["new", "new"],
      ],
    );
  });

  it("move one step at a time, either way; skipping a step is refused naming what it skips", () => {
    fc.assert(
      fc.property(fc.constantFrom(...MIGRATION_PHASES), fc.constantFrom(...MIGRATION_PHASES), (from, to) => {
        const distance = MIGRATION_PHASES.indexOf(to) - MIGRATION_PHASES.indexOf(from);
        if (Math.abs(distance) === 1) expect(checkStep(from, to)).toBe(distance > 0 ? "forward" : "rollback");
        else
          expect(() => checkStep(from, to)).toThrow(
            distance === 0
              ? problem({ code: "same-phase", phase: from })
              : problem({
                  code: "not-one-step",
                  from,
                  to,
                  skipped: MIGRATION_PHASES.slice(
                    Math.min(MIGRATION_PHASES.indexOf(from), MIGRATION_PHASES.indexOf(to)) + 1,
                    Math.max(MIGRATION_PHASES.indexOf(from), MIGRATION_PHASES.indexOf(to)),
                  ),
                }),
          );
      }),
    );
  });
});

describe("advance", () => {
  it("is a check-and-set on the phase: a record in another phase is left as it is", () => {
    expect(advanceMigration(record("dual-write"), "single", "dual-write", { file }).already).toBe(true);
    expect(() => advanceMigration(record("writes-on-new"), "dual-write", "reads-on-new", { file })).toThrow(
      problem({
        code: "wrong-phase",
        migration: file,
        phase: "writes-on-new",
        expected: "dual-write",
        revision: 3,
        setAt: "2026-01-01T00:00:00.000Z",
      }),
    );
    expect(() => advanceMigration(undefined, "single", "dual-write", { file })).toThrow(
      problem({ code: "no-record", migration: file, begin: true }),
    );
  });

  it("bumps the revision and records the step; the same step again is a no-op", () => {
    const { record: next, already } = advanceMigration(record("single"), "single", "dual-write", {
      file,
      now: new Date("2026-02-02T00:00:00Z"),
    });
    expect(already).toBe(false);
    expect(next).toMatchObject({ phase: "dual-write", revision: 4 });
    expect(next.history.at(-1)).toEqual({
      revision: 4,
      from: "single",
      to: "dual-write",
      at: "2026-02-02T00:00:00.000Z",
    });
    const again = advanceMigration(structuredClone(next), "single", "dual-write", { file });
    expect(again.already).toBe(true);
    expect(again.record.revision).toBe(4);
  });

  it("moves forward only once the service applied the current phase (force skips the guard)", () => {
    expect(() => advanceMigration(record("single", null), "single", "dual-write", { file })).toThrow(
      refusal({ reason: "no-service" }),
    );
    expect(() =>
      advanceMigration(record("single", { applied: false, error: "no such table" }), "single", "dual-write", {
        file,
      }),
    ).toThrow(refusal({ reason: "service-not-applied", pid: 1, phase: "single", error: "no such table" }));
    expect(() =>
      advanceMigration(record("single", { revision: 2 }), "single", "dual-write", { file }),
    ).toThrow(refusal({ reason: "service-not-applied", pid: 1, phase: "single" }));
    const gone = { file, serviceRunning: () => false };
    expect(() => advanceMigration(record("single"), "single", "dual-write", gone)).toThrow(
      refusal({ reason: "service-not-running", pid: 1, host: "h" }),
    );
    expect(() => advanceMigration(record("dual-write"), "dual-write", "single", gone)).not.toThrow();
    expect(
      advanceMigration(record("single", null), "single", "dual-write", {
        file,
        force: true,
      }).record.history.at(-1),
    ).toMatchObject({ forced: true });
  });

  it("cuts reads over only after a clean validation of this dual-write period", () => {
    const refused = (r: MigrationRecord) => () => advanceMigration(r, "dual-write", "reads-on-new", { file });
    expect(refused(record("dual-write"))).toThrow(
      refusal({ reason: "not-validated", validation: { kind: "none" } }),
    );
    expect(refused({ ...record("dual-write"), validation: { ...cleanValidation, differences: 2 } })).toThrow(
      refusal({ reason: "not-validated", validation: { kind: "differences", differences: 2 } }),
    );
    expect(
      refused({ ...record("dual-write"), validation: { ...cleanValidation, state: "running" } }),
    ).toThrow(refusal({ reason: "not-validated", validation: { kind: "unfinished", state: "running" } }));
    // A validation from before a rollback to single and back belongs to another period.
    expect(
      refused({ ...record("dual-write"), validation: { ...cleanValidation, dualWriteFrom: 10 } }),
    ).toThrow(refusal({ reason: "not-validated", validation: { kind: "earlier-period" } }));
    expect(refused({ ...record("dual-write"), validation: cleanValidation })).not.toThrow();
  });

  it("rolls back freely, except reads back to an old table that writes had left, until a validation proves it whole", () => {
    expect(() => advanceMigration(record("dual-write"), "dual-write", "single", { file })).not.toThrow();
    expect(() => advanceMigration(record("done"), "done", "writes-on-new", { file })).not.toThrow();
    expect(() =>
      advanceMigration(record("writes-on-new"), "writes-on-new", "reads-on-new", { file }),
    ).not.toThrow();
    expect(() =>
      advanceMigration(record("reads-on-new"), "reads-on-new", "dual-write", { file }),
    ).not.toThrow();
    const behind = record("reads-on-new", { oldMissesFrom: 70 });
    expect(() => advanceMigration(behind, "reads-on-new", "dual-write", { file })).toThrow(
      refusal({ reason: "old-table-incomplete", oldMissesFrom: 70, validation: { kind: "none" } }),
    );
    expect(() =>
      advanceMigration({ ...behind, validation: cleanValidation }, "reads-on-new", "dual-write", { file }),
    ).not.toThrow();
  });
});
