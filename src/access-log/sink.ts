/**
 * Where sampled access records go, and which operations are sampled. A sink must never block or
 * fail the operation it records: it queues or drops, and counts what it dropped.
 */
import type { AccessRecord } from "./access-record.js";

export interface AccessLogSink {
  write(record: AccessRecord): void;
}

export interface AccessLogSampling {
  sink: AccessLogSink;
  /** Share of operations recorded (0.01: one in a hundred); default 1. */
  sampleRate?: number;
}

/** Decides per operation whether it is recorded, at `rate`. */
export function sampler(rate: number | undefined): () => boolean {
  const share = rate ?? 1;
  if (!(share >= 0 && share <= 1))
    throw new Error(`accessLog.sampleRate ${share}: expected a share in [0, 1]`);
  if (share === 1) return () => true;
  if (share === 0) return () => false;
  return () => Math.random() < share;
}
