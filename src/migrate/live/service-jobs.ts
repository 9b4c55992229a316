/**
 * The jobs a live re-keying asks the service that follows its record file to run while it writes
 * both tables: the backfill and the validation. The request is written in the record; the service
 * runs it and reports in the record, which these functions poll.
 */
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { LiveMigrationError } from "./live-migration-error.js";
import { writesBoth } from "./migration-phases.js";
import { type MigrationRecord, readMigrationRecord, updateMigrationRecord } from "./migration-record.js";

const POLL_MS = 100;

export interface ServiceBackfillResult {
  migration: string;
  reverse: boolean;
  state: "complete";
  rowsRead: number;
  rowsWritten: number;
  runs: number;
  checkpoint: string;
}

export interface ServiceValidationResult {
  /** The validation's report: JSON lines, each difference then the summary. */
  report: string;
  differences: number;
}

/** The record, when the service writes both tables in its current phase (the window for backfill and validate). */
async function dualWritingRecord(
  file: string,
  job: "backfill" | "validation",
): Promise<MigrationRecord & { service: { dualWriteFrom: number } }> {
  const record = await readMigrationRecord(file);
  if (record === undefined) throw new LiveMigrationError({ code: "no-record", migration: file });
  const { service, phase } = record;
  const applied = service?.revision === record.revision && service.applied;
  if (!writesBoth(phase) || !applied || service?.dualWriteFrom === undefined) {
    const { revision } = record;
    throw new LiveMigrationError({
      code: "not-dual-writing",
      migration: file,
      job,
      phase,
      revision,
      applied,
    });
  }
  return { ...record, service: { ...service, dualWriteFrom: service.dualWriteFrom } };
}

/**
 * `migrate backfill --migration FILE`: asks the service to copy the old table into the new one
 * (resuming this dual-write period's backfill, if any), and follows it until it is complete.
 * Stopping the caller does not stop the backfill; stopping the service pauses it until it starts.
 */
export async function backfillThroughService(
  file: string,
  options: { batch: number; rate?: number; reverse?: boolean },
  onProgress: (rowsRead: number) => void = () => {},
): Promise<ServiceBackfillResult> {
  const record = await dualWritingRecord(file, "backfill");
  const period = record.service.dualWriteFrom;
  const reverse = options.reverse ?? false;
  const now = new Date().toISOString();
  await updateMigrationRecord(file, (latest) => {
    if (latest === undefined) return latest;
    const job = latest.backfill;
    const ours = job?.dualWriteFrom === period && (job.reverse ?? false) === reverse;
    if (ours && job.state !== "failed") return latest;
    if (job !== undefined && !ours && (job.state === "requested" || job.state === "running")) {
      throw new Error(
        `migration ${file}: the service is running another backfill (${job.reverse ? "new → old" : "old → new"}, ${job.rowsRead} rows read); wait for it (keyspread migrate status)`,
      );
    }
    latest.backfill = {
      dualWriteFrom: period,
      ...(reverse ? { reverse } : {}),
      state: "requested",
      checkpoint: resolve(`${file}.backfill-${period}${reverse ? "-reverse" : ""}.json`),
      batchSize: options.batch,
      ...(options.rate === undefined ? {} : { rowsPerSecond: options.rate }),
      rowsRead: ours ? job.rowsRead : 0,
      rowsWritten: ours ? job.rowsWritten : 0,
      runs: ours ? job.runs : 0,
      requestedAt: now,
      updatedAt: now,
    };
    return latest;
  });
  for (;;) {
    const job = (await readMigrationRecord(file))?.backfill;
    if (job?.dualWriteFrom !== period || (job.reverse ?? false) !== reverse)
      throw new Error(`migration ${file}: the backfill request went away`);
    onProgress(job.rowsRead);
    if (job.state === "failed") throw new Error(`the service's backfill failed: ${job.error}`);
    if (job.state === "complete") {
      const { state, rowsRead, rowsWritten, runs, checkpoint } = job;
      return { migration: file, reverse, state, rowsRead, rowsWritten, runs, checkpoint };
    }
    await sleep(POLL_MS);
  }
}

/**
 * `migrate validate --migration FILE`: asks the service to compare the tables over the rows
 * written before its cut, and waits for its report (JSON lines: each difference, then the summary).
 */
export async function validateThroughService(
  file: string,
  options: { sample: number; rows: number; ranges: number },
): Promise<ServiceValidationResult> {
  await dualWritingRecord(file, "validation");
  const id = randomBytes(6).toString("hex");
  const now = new Date().toISOString();
  await updateMigrationRecord(file, (latest) => {
    if (latest === undefined) return latest;
    latest.validation = {
      id,
      state: "requested",
      sample: options.sample,
      rowsPerEntity: options.rows,
      ranges: options.ranges,
      requestedAt: now,
      updatedAt: now,
    };
    return latest;
  });
  for (;;) {
    const job = (await readMigrationRecord(file))?.validation;
    if (job?.id !== id)
      throw new Error(`migration ${file}: the validation was replaced by another (${job?.id})`);
    if (job.state === "failed") throw new Error(`the service's validation failed: ${job.error}`);
    if (job.state === "complete") {
      if (job.report === undefined || job.differences === undefined)
        throw new Error(`migration ${file}: the validation is complete but records no report`);
      return { report: await readFile(job.report, "utf8"), differences: job.differences };
    }
    await sleep(POLL_MS);
  }
}
