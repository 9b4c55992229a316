/**
 * A backfill's progress on disk: the last source key whose batch the target holds, with the
 * counts so far. Written atomically (temp file, fsync, rename) only after the batch is written,
 * so a killed backfill resumes after that key: nothing skipped, and the at most one batch it
 * writes again sets the same cells of the same keys again, so nothing doubles.
 */
import { writeFileAtomically } from "../io/write-file-atomically.js";
import { readJsonFile } from "./json-file.js";

export interface BackfillCheckpoint {
  version: 1;
  /** Store names and schema fingerprints: a checkpoint only resumes the same migration. */
  source: string;
  target: string;
  sourceFingerprint: string;
  targetFingerprint: string;
  /** A sharded backfill's shard and its source key range (hex, end exclusive); one checkpoint per shard. */
  shard?: { index: number; count: number; start: string; end: string };
  /** Hex of the last source key written to the target; null before the first batch. */
  lastKey: string | null;
  rowsRead: number;
  rowsWritten: number;
  /** Source rows that could not be re-keyed (only with `skipBadRows`); the first ones are listed. */
  rowsSkipped: number;
  skipped: { key: string; reason: string }[];
  complete: boolean;
  updatedAt: string;
}

/** Where a backfill's progress lives: a local file (one machine) or the target table (an indexed job). */
export interface CheckpointStore {
  /** Named in errors, e.g. the file. */
  readonly name: string;
  load(): Promise<BackfillCheckpoint | undefined>;
  save(checkpoint: BackfillCheckpoint): Promise<void>;
}

export function checkpointFileStore(file: string): CheckpointStore {
  return {
    name: file,
    load: () => readBackfillCheckpoint(file),
    save: (checkpoint) => writeBackfillCheckpoint(file, checkpoint),
  };
}

export async function readBackfillCheckpoint(file: string): Promise<BackfillCheckpoint | undefined> {
  const parsed = await readJsonFile<BackfillCheckpoint>(file, "checkpoint", "; delete it to start over");
  if (parsed === undefined) return undefined;
  if (parsed.version !== 1 || typeof parsed.rowsRead !== "number") {
    throw new Error(`checkpoint ${file} is not a keyspread backfill checkpoint (version 1)`);
  }
  return parsed as BackfillCheckpoint;
}

/** Replaces the checkpoint in one step: a crash leaves the old file or the new one, never half of one. */
export async function writeBackfillCheckpoint(file: string, checkpoint: BackfillCheckpoint): Promise<void> {
  await writeFileAtomically(file, `${JSON.stringify(checkpoint, null, 2)}\n`, { durable: true });
}
