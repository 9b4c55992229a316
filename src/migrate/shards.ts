/**
 * One table's key space cut into N ranges, so N processes (on N machines) can backfill or
 * validate it in parallel. The cut comes from sampled keys (SampleRowKeys on Bigtable, a key pass
 * on the embedded store) and is written once to a shard plan file that every process reads: the
 * processes must agree on it exactly — a gap between two shards' ranges would lose rows — and a
 * table being written samples differently from one minute to the next.
 */
import { link, unlink } from "node:fs/promises";
import { writeFileAtomically } from "../io/write-file-atomically.js";
import { parseHex } from "../keys/bytes.js";
import type { KeyRange, Store } from "../store/store.js";
import { RESERVED_PREFIX } from "../table/schema-guard.js";
import type { JobPlan } from "./job/job-rows.js";
import { readJsonFile } from "./json-file.js";
import { MigrateOptionError } from "./migrate-option-error.js";

/** Shard `index` (1-based) of `count`. */
export interface Shard {
  index: number;
  count: number;
}

export interface ShardPlan {
  version: 1;
  /** The table split (a store name): a plan is only used for that table. */
  table: string;
  shards: number;
  /** `shards − 1` ascending keys (hex); shard K reads [key K−1, key K), the first from the start. */
  splitKeys: string[];
  createdAt: string;
}

const MAX_SHARDS = 10_000;

/** Parses `K/N` (1 ≤ K ≤ N). */
export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || !(count >= 1 && count <= MAX_SHARDS && index >= 1 && index <= count)) {
    const allowed = `K/N with 1 ≤ K ≤ N ≤ ${MAX_SHARDS}, e.g. 2/4`;
    throw new MigrateOptionError("shard", text, allowed, `shard "${text}" is not ${allowed}`);
  }
  return { index, count };
}

/** `shards − 1` split keys spread evenly over the table's sampled data keys. */
export async function splitKeyspace(store: Store, shards: number): Promise<Buffer[]> {
  const samples = (await store.sampleKeys(Math.max(64, shards * 16)))
    .filter((key) => key.length > 0 && key.compare(RESERVED_PREFIX) < 0)
    .sort(Buffer.compare)
    .filter((key, i, all) => i === 0 || !key.equals(all[i - 1]!));
  // With no sample (an empty table) the first shard takes everything and the others nothing.
  return Array.from(
    { length: shards - 1 },
    (_, i) => samples[Math.floor(((i + 1) * samples.length) / shards)] ?? RESERVED_PREFIX,
  );
}

/** The data keys of shard `shard`: from the previous split key (or the start) to its own (or the data's end). */
export function shardRange(plan: ShardPlan, shard: Shard): KeyRange & { end: Buffer } {
  if (plan.shards !== shard.count) {
    throw new Error(
      `the shard plan of ${plan.table} has ${plan.shards} shards; shard ${shard.index}/${shard.count} needs ${shard.count}`,
    );
  }
  const keys = plan.splitKeys.map(parseHex);
  const start = shard.index === 1 ? Buffer.alloc(0) : keys[shard.index - 2]!;
  const end = shard.index === shard.count ? RESERVED_PREFIX : keys[shard.index - 1]!;
  return { start, end: Buffer.compare(end, start) < 0 ? start : end };
}

/**
 * The plan in `file`, or, when there is none, a new one for `store` written there: created
 * exclusively, so processes starting at once on one machine all use the first one written.
 * A plan for another table or shard count is refused.
 */
export async function shardPlanFor(file: string, store: Store, shards: number): Promise<ShardPlan> {
  const existing = await readShardPlan(file);
  if (existing !== undefined) return checkPlan(existing, file, store, shards);
  const plan: ShardPlan = {
    version: 1,
    table: store.name,
    shards,
    splitKeys: (await splitKeyspace(store, shards)).map((key) => key.toString("hex")),
    createdAt: new Date().toISOString(),
  };
  const temporary = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}.new`;
  await writeFileAtomically(temporary, `${JSON.stringify(plan, null, 2)}\n`, { durable: true });
  try {
    await link(temporary, file);
    return plan;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    // Another process wrote the plan first: use it, if it is the same cut.
    const theirs = await readShardPlan(file);
    if (theirs === undefined)
      throw new Error(`shard plan ${file} was removed while this one was written; run again`);
    return checkPlan(theirs, file, store, shards);
  } finally {
    await unlink(temporary);
  }
}

export async function readShardPlan(file: string): Promise<ShardPlan | undefined> {
  const plan = await readJsonFile<ShardPlan>(file, "shard plan");
  if (plan === undefined) return undefined;
  const keys = plan.splitKeys;
  if (
    plan.version !== 1 ||
    typeof plan.table !== "string" ||
    typeof plan.shards !== "number" ||
    !Number.isInteger(plan.shards) ||
    !Array.isArray(keys) ||
    keys.length !== plan.shards - 1 ||
    !keys.every(
      (key, i) =>
        typeof key === "string" && /^(?:[0-9a-f]{2})+$/.test(key) && (i === 0 || keys[i - 1]! <= key),
    )
  ) {
    throw new Error(
      `${file} is not a keyspread shard plan (version 1: table, shards, shards − 1 ascending hex splitKeys)`,
    );
  }
  return plan as ShardPlan;
}

/** The shard plan in `file` was written for another table or shard count than this run's. */
export class ShardPlanMismatch extends Error {
  override readonly name = "ShardPlanMismatch";
  constructor(
    readonly file: string,
    readonly planned: { table: string; shards: number },
    readonly run: { table: string; shards: number },
  ) {
    super(
      `shard plan ${file} splits ${planned.table} into ${planned.shards} shards; this run needs ${run.table} in ${run.shards}: use another --shards-file, or delete this one (only if no shard has started)`,
    );
  }
}

function checkPlan(plan: ShardPlan, file: string, store: Store, shards: number): ShardPlan {
  if (plan.table !== store.name || plan.shards !== shards) {
    throw new ShardPlanMismatch(
      file,
      { table: plan.table, shards: plan.shards },
      { table: store.name, shards },
    );
  }
  return plan;
}

/** An indexed job's split keys of one side, as the shard plan `shardRange` reads. */
export function jobShardPlan(plan: JobPlan, side: "source" | "target"): ShardPlan {
  const splitKeys = side === "source" ? plan.sourceSplitKeys : (plan.targetSplitKeys ?? []);
  return {
    version: 1,
    table: plan[side],
    shards: plan.shards,
    splitKeys,
    createdAt: new Date(plan.createdAt).toISOString(),
  };
}
