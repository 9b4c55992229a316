/**
 * Turns a query into the minimal byte ranges to read: one range when the query binds every salt
 * field (its bucket is known), otherwise one per bucket. Each range's exclusive end is the byte
 * successor of what it must cover — never a `+ "~"` guess.
 */
import { keySuccessor, prefixSuccessor } from "./bytes.js";
import { QueryError, unknownFieldError } from "./errors.js";
import type { CompiledSchema } from "./schema.js";
import type {
  CodecSpec,
  FieldValue,
  FieldValues,
  KeySchema,
  PlannedRange,
  Query,
  QueryPlan,
} from "./types.js";

/** A range edge before the salt is filled in: the bytes themselves, or just past them. */
interface Edge {
  bytes: Buffer;
  /** `at`: the bytes; `after-key`: bytes + 00 (past one key); `after-prefix`: past every key they prefix. */
  kind: "at" | "after-key" | "after-prefix";
  /** `after-key` of a write-sharded row: the bytes before its shard number, to reach past its shards too. */
  shardLead?: Buffer;
}

export function planQuery(schema: CompiledSchema, query: Query): QueryPlan {
  checkQueryFields(schema, query);
  const names = schema.fields.map((f) => f.name);
  // A field given as undefined is not given (a typed query spells optional fields that way).
  const eq: FieldValues = {};
  for (const [name, value] of Object.entries(query.eq ?? {})) if (value !== undefined) eq[name] = value;
  const bound = boundPrefixLength(names, eq);
  const [lower, upper] = edges(schema, query, eq, bound);

  let buckets: number[];
  if (!schema.salt) buckets = [0];
  else if (bound >= schema.saltFields.length) {
    const w = schema.scratch();
    buckets = [schema.bucketAt(w, schema.writeFields(w, eq, schema.saltFields.length))];
  } else buckets = Array.from({ length: schema.bucketCount }, (_, b) => b);

  const ranges: PlannedRange[] = [];
  for (const bucket of buckets) {
    const start = materialize(schema, lower, bucket);
    if (start === null) continue; // nothing sorts after the lower edge: an empty range
    const end = materialize(schema, upper, bucket);
    if (end === null || Buffer.compare(start, end) < 0) ranges.push({ bucket, start, end });
  }
  const plan: QueryPlan = { fanout: ranges.length, ranges };
  if (schema.shards) plan.shardsPerRow = schema.shardsOf(eq);
  if (query.limit !== undefined) {
    if (!Number.isSafeInteger(query.limit) || query.limit < 0) {
      throw new QueryError(
        `limit: ${JSON.stringify(query.limit)} is not allowed; use a non-negative integer`,
        { problem: "bad-limit" },
      );
    }
    plan.limit = query.limit;
  }
  return plan;
}

/**
 * Every field a query names is the schema's: checked before the query's shape, so a misspelt
 * field is named as such rather than reported as a missing binding or a wrong next field.
 */
export function checkQueryFields(schema: Pick<KeySchema, "fields">, query: Query): void {
  const names = schema.fields.map((f) => f.name);
  const named = [...Object.keys(query.eq ?? {}), query.range?.field, query.prefix?.field];
  for (const name of named) {
    if (name !== undefined && !names.includes(name)) throw unknownFieldError(name, names);
  }
}

/** How many leading fields `eq` binds; every bound field must be part of that prefix. */
function boundPrefixLength(names: readonly string[], eq: FieldValues): number {
  let bound = 0;
  while (bound < names.length && eq[names[bound]!] !== undefined) bound++;
  for (const name of Object.keys(eq)) {
    if (names.indexOf(name) >= bound) {
      throw new QueryError(
        `eq binds "${name}" but not "${names[bound]}", which comes before it; a query binds a prefix of the fields (${names.join(", ")})`,
        { problem: "unbound-prefix", field: name, expected: names[bound] },
      );
    }
  }
  return bound;
}

/** The lower (inclusive) and upper (exclusive) edges of the query within any one bucket. */
function edges(schema: CompiledSchema, query: Query, eq: FieldValues, bound: number): [Edge, Edge] {
  if (query.range && query.prefix)
    throw new QueryError("a query takes either range or prefix, not both", { problem: "range-and-prefix" });
  const all = tupleEdges(schema, eq, bound);
  // Which of the two the query holds (it holds at most one), told apart by `kind`.
  const next = query.range
    ? { kind: "range" as const, ...query.range }
    : query.prefix && { kind: "prefix" as const, ...query.prefix };
  if (!next) return all;

  const { kind } = next;
  const field = schema.fields[bound];
  if (next.field !== field?.name) {
    const why = !field
      ? "every field is already bound by eq"
      : next.field === undefined
        ? `name the field it applies to: { field: "${field.name}", … } (the field after the ones eq binds)`
        : `"${next.field}" is not the next field after the ones eq binds; it must be "${field.name}"`;
    throw new QueryError(`${kind}: ${why}`, {
      problem: "not-the-next-field",
      field: next.field,
      expected: field?.name,
    });
  }

  if (next.kind === "prefix") {
    if (!field.coder.prefixable || typeof next.value !== "string") {
      throw new QueryError(
        `prefix: field "${field.name}" is a ${field.codec.type}; prefix queries need a string field and a string value`,
        { problem: "prefix-needs-string", field: field.name },
      );
    }
    const w = schema.scratch();
    schema.writeFields(w, eq, bound);
    w.bytes(field.before);
    field.coder.writePrefix(w, next.value);
    const bytes = w.take();
    return [
      { bytes, kind: "at" },
      { bytes, kind: "after-prefix" },
    ];
  }

  if (!field.coder.ordered) {
    throw new QueryError(
      `range: field "${field.name}" is a ${field.codec.type}, whose byte order is not its values' order, so a range of its values is no key range; read the rows by their whole key, or scan the table and filter`,
      { problem: "unordered-field", field: field.name },
    );
  }
  const range = wholeSecondBounds(field.codec, next);
  if (range.gte !== undefined && range.gt !== undefined)
    throw new QueryError("range: use gte or gt, not both", {
      problem: "conflicting-bounds",
      field: field.name,
    });
  if (range.lte !== undefined && range.lt !== undefined)
    throw new QueryError("range: use lte or lt, not both", {
      problem: "conflicting-bounds",
      field: field.name,
    });
  const at = (value: FieldValue) => tupleEdges(schema, { ...eq, [field.name]: value }, bound + 1);
  // For a reversed field the larger logical values come first, so logical bounds swap ends.
  const low = field.coder.descending ? [range.lte, range.lt] : [range.gte, range.gt];
  const high = field.coder.descending ? [range.gte, range.gt] : [range.lte, range.lt];
  const lower = low[0] !== undefined ? at(low[0])[0] : low[1] !== undefined ? at(low[1])[1] : all[0];
  const upper = high[0] !== undefined ? at(high[0])[1] : high[1] !== undefined ? at(high[1])[0] : all[1];
  return [lower, upper];
}

/**
 * A timestamp stored in whole seconds cannot hold a Date's milliseconds, so a bound between two
 * seconds moves to the second that keeps the same rows: up for gte/lt, down for gt/lte.
 */
function wholeSecondBounds(
  codec: CodecSpec,
  range: NonNullable<Query["range"]>,
): NonNullable<Query["range"]> {
  if (codec.type !== "timestamp" || codec.unit !== "s") return range;
  const align = (value: FieldValue | undefined, up: boolean) =>
    value instanceof Date && value.getTime() % 1000 !== 0
      ? (up ? Math.ceil : Math.floor)(value.getTime() / 1000)
      : value;
  return {
    ...range,
    gte: align(range.gte, true),
    gt: align(range.gt, false),
    lte: align(range.lte, false),
    lt: align(range.lt, true),
  };
}

/**
 * The keys whose first `count` fields equal `values` form one contiguous run: exactly one key when
 * every field is bound, else every key starting with the encoded fields and the bytes that follow
 * them up to the next field (its separator), which no other value's keys start with.
 */
function tupleEdges(schema: CompiledSchema, values: FieldValues, count: number): [Edge, Edge] {
  const w = schema.scratch();
  schema.writeFields(w, values, count);
  const complete = count === schema.fields.length;
  w.bytes(complete ? schema.after : schema.fields[count]!.before);
  const shards = complete ? schema.shards : undefined;
  const shardLead = shards?.covers(w.buf, w.pos, true) ? shards.lead : undefined;
  const bytes = w.take();
  return [
    { bytes, kind: "at" },
    complete ? { bytes, kind: "after-key", shardLead } : { bytes, kind: "after-prefix" },
  ];
}

/** The edge's bytes in `bucket`; null when it is past the end of the table. */
function materialize(schema: CompiledSchema, edge: Edge, bucket: number): Buffer | null {
  const bytes = Buffer.from(edge.bytes);
  schema.salt?.write(bytes, bucket);
  if (edge.kind === "at") return bytes;
  // A sharded row's shards are its key and a suffix: the range runs past all of them.
  if (edge.shardLead) return prefixSuccessor(Buffer.concat([bytes, edge.shardLead]));
  return edge.kind === "after-key" ? keySuccessor(bytes) : prefixSuccessor(bytes);
}
