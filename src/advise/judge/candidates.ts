/**
 * The candidate key designs for a workload: the baseline as it is, a reversed timestamp (or a
 * global counter's digits reversed), field
 * promotion, salting over the entity fields with a range of bucket counts, batching, and batching
 * combined with each key change. Each candidate is a scenario design (a real key schema), so the
 * simulator replays the same workload under it.
 */
import type { SchemaSpec, SegmentSpec } from "../../keys/types.js";
import { defaultCapacity } from "../../sim/cluster/model.js";
import type { Scenario, ScenarioDesign } from "../../sim/scenario/scenario.js";
import { tableFor } from "../../sim/scenario/table-that-exists.js";
import { AdviseOptionError } from "../infer/advise-errors.js";
import { cardinalityOf, type KeyFieldInfo, type KeyRoles, keyRoles } from "../infer/field-roles.js";
import type { RealKey } from "../infer/real-key.js";
import { designName, type KeyChange } from "./design-name.js";
import { writeShardChanges } from "./write-shard-candidate.js";

export type { KeyChange } from "./design-name.js";

/**
 * How much a change costs the people who run the table (docs/advisor.md, "simplicity order"):
 * reversing a timestamp is a codec flag; batching changes the ingest tier and the row format;
 * promotion reorders the key so every reader must know the promoted field; a salt adds a hash,
 * scatter-gather reads and a bucket count fixed for the table's life.
 */
export const KEY_CHANGE_COMPLEXITY: Readonly<Record<KeyChange["kind"], number>> = {
  "reverse-timestamp": 1,
  // A codec too, but ids stop sorting: a range of ids becomes a scan of the whole table.
  "reverse-sequence": 1,
  batch: 2,
  promote: 2,
  salt: 3,
  // Like a salt, reads merge several rows, but only for the hot rows and with no hash to fix for life.
  "write-shards": 2,
};

export interface CandidateDesign {
  name: string;
  description: string;
  changes: KeyChange[];
  /** Sum of the changes' complexity; 0 for the baseline. */
  complexity: number;
  design: ScenarioDesign;
}

export interface CandidateDesignOptions {
  /** Node count the bucket choices are sized for. */
  nodes: number;
  /** Whether batching points per entity is allowed (reads that need each point at once forbid it); default true. */
  batching?: boolean;
  /** Salt bucket counts to try instead of `bucketChoices(nodes)`. */
  buckets?: readonly number[];
  /** The real key where the model differs (a time the real key holds as text cannot be stored reversed by a codec flag). */
  realKey?: RealKey;
}

/** Batch intervals tried, shortest first: the shortest that puts ≥ 2 points in a row is used. */
export const BATCH_INTERVALS_S = [1, 2, 5, 10, 15, 30, 60] as const;

/**
 * Bucket counts tried: 2, 3 and 4 × nodes and the powers of two up to 256 — those that match or
 * exceed the nodes (the salting guide: fewer buckets than nodes leave nodes without writes).
 */
export function saltBucketChoices(nodes: number): number[] {
  const choices = new Set([2 * nodes, 3 * nodes, 4 * nodes]);
  for (let buckets = 2; buckets <= 256; buckets *= 2) choices.add(buckets);
  return [...choices].filter((n) => n >= Math.max(2, nodes) && n <= 65536).sort((a, b) => a - b);
}

export function describeKeyChange(change: KeyChange): string {
  switch (change.kind) {
    case "reverse-timestamp":
      return `${change.field} stored reversed (newest first)`;
    case "reverse-sequence":
      return `${change.field} stored digit-reversed (a reversed-uint: bit-reversed in a binary key), so consecutive ids spread over the key space; a get by ${change.field} stays one row, but ids no longer sort: a range of ids becomes a scan of the whole table`;
    case "promote":
      return `${change.field} promoted to the front of the key`;
    case "salt":
      return `${change.buckets} salt buckets over ${change.fields.join(", ")}`;
    case "batch":
      return `${change.intervalS} s of each entity's points in one row`;
    case "write-shards":
      return `${change.entities ? "the hot rows'" : "every row's"} writes spread over ${change.count} write shards, merged on read`;
  }
}

function applyChange(
  spec: SchemaSpec,
  change: KeyChange,
  roles: KeyRoles,
  realKey: RealKey | undefined,
): SchemaSpec {
  switch (change.kind) {
    case "reverse-timestamp":
      return {
        ...spec,
        segments: spec.segments.map((segment) =>
          "field" in segment && segment.field === change.field && segment.codec.type === "timestamp"
            ? { field: segment.field, codec: { ...segment.codec, reverse: true } }
            : segment,
        ),
      };
    case "reverse-sequence":
      return {
        ...spec,
        segments: spec.segments.map((segment) =>
          "field" in segment && segment.field === change.field && segment.codec.type === "uint"
            ? { field: segment.field, codec: { ...segment.codec, type: "reversed-uint" } }
            : segment,
        ),
      };
    case "promote": {
      const { salt: _salt, ...unsalted } = spec;
      const firstField = spec.segments.findIndex((segment) => "field" in segment);
      const promoted = roles.fields.find((field) => field.name === change.field)!;
      const at = spec.segments.findIndex((segment) => "field" in segment && segment.field === change.field);
      // A word written right before the field's digits (`u` of `u42`) moves with it.
      const word = spec.segments[at - 1];
      const glued =
        at - 1 >= firstField && word && "literal" in word && realKey?.glued[change.field] === word.literal
          ? word
          : undefined;
      const rest = spec.segments.slice(firstField).filter((_segment, index) => {
        const position = firstField + index;
        return position !== at && !(glued && position === at - 1);
      });
      const segments: SegmentSpec[] = [
        ...spec.segments.slice(0, firstField),
        ...(glued ? [glued] : []),
        { field: promoted.name, codec: promoted.codec },
        ...rest,
      ];
      return { ...unsalted, segments };
    }
    case "salt":
      return {
        ...spec,
        salt: { buckets: change.buckets, fields: change.fields },
      };
    case "batch":
      return spec;
    case "write-shards":
      return {
        ...spec,
        writeShards: { count: change.count, ...(change.entities ? { entities: change.entities } : {}) },
      };
  }
}

function candidateOf(
  base: ScenarioDesign,
  changes: KeyChange[],
  roles: KeyRoles,
  realKey: RealKey | undefined,
): CandidateDesign {
  const changed = changes.reduce((spec, change) => applyChange(spec, change, roles, realKey), base.schema);
  // The schema is named after the key changes it implements (`device-reverse-ts-salt-64-by-deviceID`).
  const keyChanges = changes.filter((change) => change.kind !== "batch");
  const schema =
    keyChanges.length > 0 ? { ...changed, name: `${base.schema.name}-${designName(keyChanges)}` } : changed;
  const batchS = changes.find((change) => change.kind === "batch")?.intervalS ?? base.batch;
  const name = designName(changes);
  const description =
    changes.length === 0
      ? (base.description ?? "the current key")
      : changes.map(describeKeyChange).join("; ");
  return candidateFrom(
    name,
    description,
    changes,
    { name, description, schema, ...(batchS === undefined ? {} : { batch: batchS }) },
    base,
  );
}

/**
 * A candidate with its complexity, on the table `tableFor` gives it against the current key: the
 * table that exists when it keeps the key, a new one (re-keying) when it changes it. The advisor's
 * own candidates and a scenario's designs go through here alike.
 */
export function candidateFrom(
  name: string,
  description: string,
  changes: KeyChange[],
  design: ScenarioDesign,
  current: ScenarioDesign,
): CandidateDesign {
  return {
    name,
    description,
    changes,
    complexity: changes.reduce((sum, change) => sum + KEY_CHANGE_COMPLEXITY[change.kind], 0),
    design: { ...design, table: tableFor(design, current) },
  };
}

/**
 * Salt over the entity fields that lead the key, so one entity stays in one bucket and its reads
 * read one range; with no entity field before the moving one, over the whole key, so every write
 * is hashed on its own (as Apache Phoenix salts: a time or counter alone would put all writes of
 * one instant in one bucket).
 */
export function saltFields(roles: KeyRoles): string[] {
  const key = roles.fields.filter((field) => field.inKey);
  const through = roles.entityPrefix.at(-1) ?? key.at(-1);
  if (through === undefined) return [];
  return key.slice(0, key.indexOf(through) + 1).map((field) => field.name);
}

/**
 * One entity's writes stay in its bucket under an entity salt: when the busiest entity alone
 * would write more than this share of a node's capacity at twice the rate, salts over the entity
 * and the time are tried too (they spread one entity over the buckets, and its reads fan out).
 */
const ENTITY_SHARE_OF_NODE = 0.25;

/** Salt over the entity prefix and the moving field, when one entity writes too much for one node. */
function timeSaltFields(scenario: Scenario, roles: KeyRoles): string[] | undefined {
  if (roles.entityPrefix.length === 0 || roles.monotonic === undefined) return undefined;
  const busiest = scenario.workload.groups.reduce((a, b) =>
    b.writesPerS / b.entities > a.writesPerS / a.entities ? b : a,
  );
  const perEntityPerS = busiest.writesPerS / busiest.entities;
  if (2 * perEntityPerS < ENTITY_SHARE_OF_NODE * defaultCapacity(scenario.cluster.storage).writesPerS)
    return undefined;
  const key = roles.fields.filter((field) => field.inKey);
  return key.slice(0, key.indexOf(roles.monotonic) + 1).map((field) => field.name);
}

/**
 * A global counter: a sequence no writer field precedes, stored as a plain uint. Reversing its
 * digits is the classic cure (every next id lands elsewhere, with no salt to size).
 */
function globalCounter(roles: KeyRoles): KeyFieldInfo | undefined {
  const field = roles.monotonic;
  return field?.role.kind === "sequence" && roles.entityPrefix.length === 0 && field.codec.type === "uint"
    ? field
    : undefined;
}

/** Fields worth promoting: spreading ones with at least as many values as nodes, not already first. */
function promotable(roles: KeyRoles, nodes: number): KeyFieldInfo[] {
  const first = roles.fields.find((field) => field.inKey);
  return roles.fields.filter(
    (field) =>
      field !== first &&
      (field.role.kind === "entity" || field.role.kind === "pick") &&
      cardinalityOf(field) >= Math.max(2, nodes),
  );
}

/**
 * The shortest interval putting ≥ 2 points in a row of the busiest group: batching joins one
 * entity's points under one key, so it is a candidate only where an entity writes more than once
 * per interval. Never where every write is its own entity — a counter, or a time-ordered event id
 * (UUID v1/v7, ULID) the model runs as its time: such a row never gets a second point.
 */
export function batchInterval(scenario: Scenario, roles: KeyRoles, realKey?: RealKey): number | undefined {
  if (roles.monotonic?.role.kind !== "time") return undefined;
  if (realKey?.eventIds.includes(roles.monotonic.name)) return undefined;
  const key = roles.fields.filter((field) => field.inKey);
  if (key.some((field) => field.role.kind === "sequence")) return undefined;
  // Without a writer in the key there is nothing to batch per: one row would take every write.
  if (!key.some((field) => field.role.kind === "entity")) return undefined;
  const busiest = scenario.workload.groups.reduce((a, b) => (b.writesPerS > a.writesPerS ? b : a));
  // A value picked per write into the key (a metric) splits an entity's points over that many rows.
  const rowsPerEntity = key.reduce(
    (product, field) => product * (field.role.kind === "pick" ? field.role.cardinality : 1),
    1,
  );
  const pointsPerRowPerS = busiest.writesPerS / busiest.entities / rowsPerEntity;
  return BATCH_INTERVALS_S.find((intervalS) => pointsPerRowPerS * intervalS >= 2);
}

export function enumerateCandidates(
  scenario: Scenario,
  baseline: ScenarioDesign,
  options: CandidateDesignOptions,
): CandidateDesign[] {
  const roles = keyRoles(scenario, baseline.schema);
  const keyChanges: KeyChange[][] = [];
  const time = roles.fields.find(
    (field) =>
      field.inKey &&
      field.role.kind === "time" &&
      !field.role.reverse &&
      field.codec.type === "timestamp" &&
      (options.realKey?.codecs[field.name] ?? field.codec).type === "timestamp",
  );
  if (time) keyChanges.push([{ kind: "reverse-timestamp", field: time.name }]);
  // Under a salt the counter no longer leads the key: its cure is the salt's bucket count, and a
  // reversal would keep too few buckets.
  const counter = baseline.schema.salt ? undefined : globalCounter(roles);
  if (counter) keyChanges.push([{ kind: "reverse-sequence", field: counter.name }]);
  for (const field of promotable(roles, options.nodes))
    keyChanges.push([{ kind: "promote", field: field.name }]);
  keyChanges.push(...writeShardChanges(scenario, baseline));
  const saltings = [saltFields(roles), timeSaltFields(scenario, roles)].filter(
    (fields): fields is string[] => fields !== undefined,
  );
  for (const fields of saltings) {
    for (const buckets of options.buckets ?? saltBucketChoices(options.nodes)) {
      if (!Number.isInteger(buckets) || buckets < 2 || buckets > 65536)
        throw new AdviseOptionError(
          "buckets",
          String(buckets),
          "whole numbers from 2 to 65536",
          `buckets: ${buckets} is not a whole number from 2 to 65536`,
        );
      if (baseline.schema.salt?.buckets === buckets) continue;
      keyChanges.push([{ kind: "salt", buckets, fields }]);
    }
  }
  const interval =
    options.batching === false || baseline.batch
      ? undefined
      : batchInterval(scenario, roles, options.realKey);
  const batch: KeyChange[] = interval === undefined ? [] : [{ kind: "batch", intervalS: interval }];
  const all: KeyChange[][] = [
    [],
    ...keyChanges,
    ...(batch.length > 0 ? [batch, ...keyChanges.map((changes) => [...changes, ...batch])] : []),
  ];
  return all.map((changes) => candidateOf(baseline, changes, roles, options.realKey));
}
