/**
 * The contract of a key schema: what a user declares (`SchemaSpec`, also the JSON/YAML file
 * format) and what the rest of keyspread uses (`KeySchema`). Pure: no I/O anywhere in src/keys.
 */

/** A field value as callers pass it. Timestamps accept Date, number or bigint; int64 bigint or number. */
export type FieldValue = string | number | bigint | Date;
export type FieldValues = Record<string, FieldValue>;

export type TimeUnit = "s" | "ms" | "us";

export type CodecSpec =
  /** Order-preserving, escaped, any text. `raw: true` writes the text as is and rejects the separator. */
  | { type: "string"; raw?: boolean }
  /** Unsigned integer: text layout zero-pads to `width` digits; binary layout big-endian in `bytes`. */
  | { type: "uint"; width?: number; bytes?: 1 | 2 | 4 | 8 }
  /**
   * Unsigned integer stored reversed, to spread a global sequence: text layout writes its `width`
   * decimal digits last digit first, binary layout its `bytes` × 8 bits in reverse order.
   * Order-destroying by design: consecutive ids land far apart, so a range over it is no key range.
   */
  | { type: "reversed-uint"; width?: number; bytes?: 1 | 2 | 4 | 8 }
  /** Signed 64-bit: sign-flipped big-endian (binary) or offset zero-padded decimal (text). */
  | { type: "int64" }
  /** `reverse: true` stores (max − t) so the newest sorts first. */
  | { type: "timestamp"; unit: TimeUnit; reverse?: boolean }
  /** `www.example.com` is stored as `com.example.www`; decode gives back the original. */
  | { type: "reverse-domain" }
  /** Stored as the index in `values` (order = declaration order). */
  | { type: "enum"; values: string[] };

export type SegmentSpec = { literal: string } | { field: string; codec: CodecSpec };

export type SaltHash =
  /** Default: xxHash32 (seed 0) over the salt fields' canonical bytes, unsigned mod N. */
  | "xxh32"
  /** The game-studio recipe: parseInt(md5(hex)[0..4], 16) mod N over the salt fields' text joined by the separator. */
  | "md5-hex4"
  /** Apache Phoenix SALT_BUCKETS: one byte, Java 31-polynomial over the rest of the key. */
  | "phoenix"
  /**
   * Older Phoenix's SALT_BUCKETS, `(byte) (Math.abs(h) % N)`: like `phoenix` except for keys
   * hashing to Integer.MIN_VALUE, whose salt byte lands outside [0, N) (as HBaseWD's does).
   */
  | "phoenix-legacy"
  /** Sematext HBaseWD RowKeyDistributorByHashPrefix: one byte prefix. */
  | "hbasewd";

export interface SaltSpec {
  /** Bucket count N, 1..65536 (1..256 for the one-byte presets). */
  buckets: number;
  /**
   * Fields that feed the hash: the leading fields in key order. The hash reads the encoded key
   * from just after the salt through the last of them (literals and separators included).
   * Default: the fields before the first timestamp (xxh32, md5-hex4); every field (phoenix, hbasewd).
   */
  fields?: string[];
  hash?: SaltHash;
  /** Text layout: decimal digits of the salt; default is the digits of N − 1, so `1` never prefixes `10`. */
  width?: number;
  /**
   * The hash input as a template, for recipes that hash other text than the key holds (the farm-sensor recipe:
   * `"{farm_id}_{sensor_id}"` while the key reads `farm_{farm_id}_sensor_{sensor_id}`): each
   * `{field}` is replaced by that field's encoded bytes, the rest is literal UTF-8 (`{{`, `}}` for
   * braces). The fields it names are the salt fields and must lead the key.
   */
  input?: string;
}

/**
 * Write shards for hot logical rows: each sharded row is spread over `count` physical rows by a
 * suffix after the key's last segment (text: the separator and `count − 1`'s digits, zero-padded;
 * binary: one byte). Writes pick a shard; reads of the row read all of them.
 */
export interface WriteShardsSpec {
  /** Physical rows per logical row, 2..256. */
  count: number;
  /**
   * Only the rows of these entities are sharded; each binds a leading subset of the fields (e.g.
   * `{ counterId: "global" }`), and every row whose fields match gets the suffix. Absent: every row.
   */
  entities?: FieldValues[];
}

export interface SchemaSpec {
  /** Format version of this spec; 1 today. */
  version: 1;
  name: string;
  /** `text`: human-readable like the case studies' keys; `binary`: compact salt bytes and binary ints. */
  layout: "text" | "binary";
  /** Text layout: the segment separator (one ASCII char), default `#`. */
  separator?: string;
  segments: SegmentSpec[];
  salt?: SaltSpec;
  writeShards?: WriteShardsSpec;
}

/**
 * A query binds a prefix of the schema's fields by equality, optionally a range or a prefix on the
 * next field, and an optional limit. Typed by a schema's field values, it takes only its fields.
 */
export interface Query<V extends FieldValues = FieldValues> {
  eq?: SomeFields<V>;
  range?: { [F in FieldName<V>]: { field: F; gte?: V[F]; gt?: V[F]; lte?: V[F]; lt?: V[F] } }[FieldName<V>];
  prefix?: { field: FieldName<V>; value: string };
  limit?: number;
}

/** Some of the fields; a field given as undefined is not given. */
export type SomeFields<V extends FieldValues> = { [F in keyof V]?: V[F] | undefined };
type FieldName<V extends FieldValues> = keyof V & string;

/** The field segments of a spec. */
type FieldSegmentOf<S extends SchemaSpec> = Extract<S["segments"][number], { field: string }>;

/** What a codec's field takes: an enum its values, a timestamp a Date or an integer. */
type ValueIn<C extends CodecSpec> = C extends { type: "string" | "reverse-domain" }
  ? string
  : C extends { type: "enum"; values: readonly (infer V extends string)[] }
    ? V
    : C extends { type: "timestamp" }
      ? number | bigint | Date
      : number | bigint;

/** What decoding gives back (the "decodes as" column of docs/keys.md). */
type ValueOut<C extends CodecSpec> = C extends { type: "string" | "reverse-domain" }
  ? string
  : C extends { type: "enum"; values: readonly (infer V extends string)[] }
    ? V
    : C extends { type: "timestamp"; unit: "us" }
      ? bigint
      : C extends { type: "timestamp" }
        ? number
        : C extends { type: "int64" }
          ? bigint
          : number | bigint;

/**
 * The field values a spec written in TypeScript declares, each typed by its codec; a spec whose
 * field names are not literal types (read from a file, or widened) gives `FieldValues`.
 */
export type FieldValuesOf<S extends SchemaSpec> = string extends FieldSegmentOf<S>["field"]
  ? FieldValues
  : { [F in FieldSegmentOf<S> as F["field"]]: ValueIn<F["codec"]> };

/** The values `decode` gives back for a spec written in TypeScript. */
export type DecodedValuesOf<S extends SchemaSpec> = string extends FieldSegmentOf<S>["field"]
  ? Record<string, FieldValue>
  : { [F in FieldSegmentOf<S> as F["field"]]: ValueOut<F["codec"]> };

/** One byte range `[start, end)` a query must read; `end: null` is "to the end of the table". */
export interface PlannedRange {
  bucket: number;
  start: Buffer;
  end: Buffer | null;
}

export interface QueryPlan {
  /** How many ranges (buckets) the query reads: its fan-out (read amplification is rows scanned per row returned). */
  fanout: number;
  /** Sorted by `start`, non-overlapping. */
  ranges: PlannedRange[];
  limit?: number;
  /**
   * Schemas with write shards: physical rows each logical row the query reads may span (the
   * shards are adjacent, so the ranges stay one per bucket); 1 when the query rules out every
   * sharded entity.
   */
  shardsPerRow?: number;
}

export interface DecodedKey<D extends Record<string, FieldValue> = Record<string, FieldValue>> {
  bucket: number;
  values: D;
  /** The write shard, for a key of a write-sharded row. */
  shard?: number;
}

/**
 * A validated, compiled schema. `V` and `D` type the field values it takes and gives back; a
 * schema compiled from a literal spec has them (`compileSchema`), one read from a file does not.
 */
export interface KeySchema<
  V extends FieldValues = FieldValues,
  D extends Record<string, FieldValue> = Record<string, FieldValue>,
> {
  readonly spec: SchemaSpec;
  /** Stable hash of the spec's meaning (not its formatting), e.g. `ks1-3f9a…`. */
  readonly fingerprint: string;
  /** Fields in key order, with their codecs. */
  readonly fields: readonly { name: string; codec: CodecSpec }[];
  /** Fields that feed the salt (empty when unsalted). */
  readonly saltFields: readonly string[];
  /** N; 1 when unsalted. */
  readonly bucketCount: number;
  /**
   * Bytes the salt prefix takes at the front of every key (0 when unsalted). Merging buckets in
   * logical order compares `key.subarray(saltPrefixLength)`.
   */
  readonly saltPrefixLength: number;
  /** Physical rows per sharded logical row (`writeShards.count`); 1 without write shards. */
  readonly writeShardCount: number;
  /**
   * The row's key; a write-sharded row needs its `shard`, 0..writeShardCount − 1 (`SaltedTable`
   * picks one), and an unsharded row takes none.
   */
  encode(values: V, shard?: number): Buffer;
  /**
   * Physical rows the logical rows binding `values` (leading fields) may span: `writeShardCount`
   * for a sharded entity (or one `values` does not rule out), else 1.
   */
  shardsOf(values: SomeFields<V>): number;
  decode(key: Buffer): DecodedKey<D>;
  /**
   * The bucket a key's salt prefix names (0 when unsalted), without decoding the rest. For keys
   * of the `hbasewd` and `phoenix-legacy` hashes it may lie outside [0, N): bucket scans miss them.
   */
  bucketOfKey(key: Buffer): number;
  bucketOf(values: SomeFields<V>): number;
  plan(query: Query<V>): QueryPlan;
}
