/**
 * The backfill and validation a migration record asks for, run by the service while both tables
 * are written: at most one of each, their progress and outcome written back to the record. A job
 * stopped because the service stops stays requested and resumes at the next start.
 */
import { type MigrationRecord, updateMigrationRecord } from "../../migrate/live/migration-record.js";
import type { SaltedTable } from "../../table/salted-table.js";
import { logEvent } from "../observe/service-events.js";
import { runBackfill, runValidation } from "./migration-jobs.js";

export interface JobRunnerOptions {
  /** The record's file. */
  file: string;
  log: (line: string) => void;
  /** The old and new tables (both open while both are written). */
  tables: () => { old: SaltedTable; new: SaltedTable };
  /** The cut a validation compares below: the pipeline's `completeBelow`. */
  completeBelow: () => number;
  /** Whether the service is stopping: a job aborted then is not reported failed. */
  closing: () => boolean;
}

type JobKind = "backfill" | "validation";

interface RunningJob {
  key: string;
  controller: AbortController;
  done: Promise<void>;
}

export class JobRunner {
  private readonly jobs = new Map<JobKind, RunningJob>();

  constructor(private readonly options: JobRunnerOptions) {}

  /** Starts the backfill and validation the record asks for that are not running yet. */
  run(record: MigrationRecord, dualWriteFrom: number | undefined): void {
    const { backfill, validation } = record;
    if (
      backfill &&
      (backfill.state === "requested" || backfill.state === "running") &&
      backfill.dualWriteFrom === dualWriteFrom &&
      !this.jobs.has("backfill")
    ) {
      const reverse = backfill.reverse ?? false;
      this.start("backfill", backfill.checkpoint, (signal) => this.backfill(dualWriteFrom, reverse, signal));
    }
    if (
      validation &&
      (validation.state === "requested" || validation.state === "running") &&
      this.jobs.get("validation")?.key !== validation.id
    ) {
      this.jobs.get("validation")?.controller.abort(new Error("a newer validation was requested"));
      this.start("validation", validation.id, (signal) =>
        this.validate(validation.id, dualWriteFrom, signal),
      );
    }
  }

  /** Aborts every job and waits for them. */
  async stop(reason: string): Promise<void> {
    for (const job of this.jobs.values()) job.controller.abort(new Error(reason));
    await Promise.all([...this.jobs.values()].map((job) => job.done));
  }

  private start(kind: JobKind, key: string, work: (signal: AbortSignal) => Promise<void>): void {
    const controller = new AbortController();
    const done = work(controller.signal)
      .catch((error: unknown) => {
        logEvent(this.options.log, `migration-${kind}-error` as const, { error: String(error) });
      })
      .finally(() => {
        if (this.jobs.get(kind)?.controller === controller) this.jobs.delete(kind);
      });
    this.jobs.set(kind, { key, controller, done });
  }

  private async backfill(period: number | undefined, reverse: boolean, signal: AbortSignal): Promise<void> {
    const { file, log } = this.options;
    const current = (record: MigrationRecord | undefined) => {
      const job = record?.backfill;
      return job !== undefined && job.dualWriteFrom === period && (job.reverse ?? false) === reverse
        ? job
        : undefined;
    };
    const started = await updateMigrationRecord(file, (record) => {
      const job = current(record);
      if (job === undefined || record === undefined) return record;
      job.state = "running";
      job.runs += 1;
      job.updatedAt = new Date().toISOString();
      return record;
    });
    const job = current(started);
    if (job === undefined) return;
    logEvent(log, "migration-backfill", { state: "running", run: job.runs, reverse });
    const tables = this.options.tables();
    let lastReport = 0;
    const report = (changes: Partial<typeof job>) =>
      updateMigrationRecord(file, (record) => {
        const latest = current(record);
        if (latest === undefined || record === undefined) return record;
        Object.assign(latest, changes, { updatedAt: new Date().toISOString() });
        return record;
      });
    try {
      const result = await runBackfill(tables, job, signal, (progress) => {
        if (Date.now() - lastReport < 1000) return;
        lastReport = Date.now();
        void report({ rowsRead: progress.rowsRead, rowsWritten: progress.rowsWritten }).catch(() => {});
      });
      await report({ state: "complete", rowsRead: result.rowsRead, rowsWritten: result.rowsWritten });
      logEvent(log, "migration-backfill", { state: "complete", rowsRead: result.rowsRead });
    } catch (error) {
      // Stopping the service leaves it running: the next start resumes it from its checkpoint.
      if (signal.aborted && this.options.closing()) return;
      await report({ state: "failed", error: signal.aborted ? String(signal.reason) : String(error) });
      throw error;
    }
  }

  private async validate(id: string, dualWriteFrom: number | undefined, signal: AbortSignal): Promise<void> {
    const { file, log } = this.options;
    const cut = this.options.completeBelow();
    const reportFile = `${file}.validation-${id}.jsonl`;
    const update = (change: (job: NonNullable<MigrationRecord["validation"]>) => void) =>
      updateMigrationRecord(file, (record) => {
        if (record?.validation?.id !== id) return record;
        change(record.validation);
        record.validation.updatedAt = new Date().toISOString();
        return record;
      });
    const started = await update((job) => {
      job.state = "running";
      job.cut = cut;
      if (dualWriteFrom !== undefined) job.dualWriteFrom = dualWriteFrom;
      job.report = reportFile;
    });
    const job = started?.validation;
    if (job?.id !== id) return;
    try {
      const result = await runValidation(this.options.tables(), { ...job, report: reportFile }, cut, signal);
      await update((latest) => {
        latest.state = "complete";
        latest.differences = result.differences;
        latest.summary = result.summary;
      });
      logEvent(log, "migration-validation", { id, differences: result.differences, cut });
    } catch (error) {
      if (signal.aborted && this.options.closing()) return;
      await update((latest) => {
        latest.state = "failed";
        latest.error = signal.aborted ? String(signal.reason) : String(error);
      });
      throw error;
    }
  }
}
