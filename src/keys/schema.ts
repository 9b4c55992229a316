/** Compiles a SchemaSpec into a KeySchema: a specialised encoder/decoder, its salt, its fingerprint. */
import { load as parseYaml } from "js-yaml";
import { type FieldCodec, KeyWriter, makeFieldCodec } from "./codec.js";
import {
  BIGTABLE_MAX_KEY_BYTES,
  FieldValueError,
  KeyDecodeError,
  KeyTooLongError,
  SchemaError,
  unknownFieldError,
} from "./errors.js";
import type { BucketFunction } from "./hash/bucket-hashes.js";
import { sha256Hex } from "./hash/digest.js";
import { planQuery } from "./planner.js";
import { binarySaltPrefix, decimalSaltPrefix, parseSaltInput, SALT_HASHES, type SaltPrefix } from "./salt.js";
import { type NormalizedSpec, normalizeSpec } from "./spec.js";
import type {
  CodecSpec,
  DecodedKey,
  DecodedValuesOf,
  FieldValue,
  FieldValues,
  FieldValuesOf,
  KeySchema,
  Query,
  QueryPlan,
  SchemaSpec,
} from "./types.js";
import { WriteShardError, WriteShards } from "./write-shards.js";

/** A typed identity for declaring a schema in TypeScript (compile it with `compileSchema`). */
export function defineSchema<const T extends SchemaSpec>(spec: T): T {
  return spec;
}

/**
 * Validates and compiles a spec; throws SchemaError naming the offending path. A spec written in
 * TypeScript types the schema's field values: `encode`, `plan` and `decode` know its fields.
 */
export function compileSchema<const S extends SchemaSpec>(
  spec: S,
): KeySchema<FieldValuesOf<S>, DecodedValuesOf<S>> {
  return new CompiledSchema(normalizeSpec(spec)) as KeySchema as KeySchema<
    FieldValuesOf<S>,
    DecodedValuesOf<S>
  >;
}

/** Parses a JSON or YAML schema file's text (YAML when `format` is omitted: it accepts JSON too). */
export function parseSchema(text: string, format: "json" | "yaml" = "yaml"): KeySchema {
  let spec: unknown;
  try {
    spec = format === "json" ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new SchemaError("", `not valid ${format.toUpperCase()}: ${(error as Error).message}`, {
      problem: "syntax",
      value: format,
    });
  }
  return new CompiledSchema(normalizeSpec(spec));
}

/** `ks1-` + 16 hex digits of SHA-256 over the canonical JSON of the normalized spec, minus its name. */
export function fingerprintOf(spec: NormalizedSpec): string {
  const { name: _name, ...meaning } = spec;
  return `ks1-${sha256Hex(canonicalJson(meaning)).slice(0, 16)}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** One field as the encoder sees it: the constant bytes written before it, then its codec. */
export interface CompiledField {
  readonly name: string;
  readonly codec: CodecSpec;
  readonly coder: FieldCodec;
  /** Separators and literal segments between the previous field (or the salt) and this one. */
  readonly before: Uint8Array;
}

export class CompiledSchema implements KeySchema {
  readonly fingerprint: string;
  readonly fields: readonly CompiledField[];
  private readonly fieldNames: ReadonlySet<string>;
  readonly saltFields: readonly string[];
  readonly bucketCount: number;
  readonly saltPrefixLength: number;
  /** Constant bytes after the last field (trailing literals). */
  readonly after: Uint8Array;
  readonly salt: SaltPrefix | undefined;
  /** The salt's hash; without a salt every key is in bucket 0. */
  readonly bucketFunction: BucketFunction = () => 0;
  private readonly writer = new KeyWriter();
  /** `salt.input`: literal bytes and salt field indexes, in template order; undefined when the key is hashed in place. */
  private readonly saltInput: readonly (Uint8Array | number)[] | undefined;
  /** Where each salt field's encoded bytes start and end in the key being written or read. */
  private readonly saltFieldStarts: Int32Array;
  private readonly saltFieldEnds: Int32Array;
  private readonly inputWriter = new KeyWriter(256);
  readonly layout: "text" | "binary";
  /** The text layout's separator byte (0 in binary layout). */
  readonly separator: number;
  /** The write-shard suffix, when the spec has `writeShards`. */
  readonly shards: WriteShards | undefined;
  readonly writeShardCount: number;

  constructor(readonly spec: NormalizedSpec) {
    this.fingerprint = fingerprintOf(spec);
    const text = spec.layout === "text";
    const separator = spec.layout === "text" ? spec.separator.charCodeAt(0) : 0;
    this.layout = spec.layout;
    this.separator = separator;
    const fields: CompiledField[] = [];
    let pending: number[] = [];
    spec.segments.forEach((segment, i) => {
      if (text && i > 0) pending.push(separator);
      if ("literal" in segment) {
        pending.push(...Buffer.from(segment.literal));
        return;
      }
      const last = i === spec.segments.length - 1;
      const coder = makeFieldCodec(segment.codec, {
        field: segment.field,
        layout: spec.layout,
        separator,
        last,
      });
      fields.push({ name: segment.field, codec: segment.codec, coder, before: Uint8Array.from(pending) });
      pending = [];
    });
    this.fields = fields;
    this.fieldNames = new Set(fields.map((f) => f.name));
    this.after = Uint8Array.from(pending);

    const salt = spec.salt;
    this.saltFields = salt?.fields ?? [];
    this.saltFieldStarts = new Int32Array(this.saltFields.length);
    this.saltFieldEnds = new Int32Array(this.saltFields.length);
    this.saltInput =
      salt?.input === undefined
        ? undefined
        : parseSaltInput(salt.input).map((part) =>
            "field" in part ? this.saltFields.indexOf(part.field) : Buffer.from(part.literal, "utf8"),
          );
    this.bucketCount = salt?.buckets ?? 1;
    if (salt) {
      const info = SALT_HASHES[salt.hash];
      this.bucketFunction = info.bucket;
      this.salt =
        salt.width !== undefined
          ? decimalSaltPrefix(salt.width, separator)
          : binarySaltPrefix(info.oneRawByte || salt.buckets <= 256 ? 1 : 2);
    }
    this.saltPrefixLength = this.salt?.length ?? 0;
    this.shards = spec.writeShards && new WriteShards(spec.writeShards, this);
    this.writeShardCount = this.shards?.count ?? 1;
  }

  encode(values: FieldValues, shard?: number): Buffer {
    this.rejectUnknownFields(values);
    const w = this.writer;
    const hashEnd = this.writeFields(w, values, this.fields.length);
    w.bytes(this.after);
    if (this.shards?.covers(w.buf, w.pos, true)) {
      if (shard === undefined) {
        throw new WriteShardError(
          `this row is write-sharded over ${this.shards.count} rows: pass a shard 0..${this.shards.count - 1} (SaltedTable picks one per write)`,
        );
      }
      this.shards.write(w, shard);
    } else if (shard !== undefined) {
      throw new WriteShardError(`shard ${shard} given for a row that is not write-sharded (see writeShards)`);
    }
    if (w.pos > BIGTABLE_MAX_KEY_BYTES) throw new KeyTooLongError(this.spec.name, w.pos);
    if (this.salt) this.salt.write(w.buf, this.hashBucket(w.buf, hashEnd));
    return w.take();
  }

  shardsOf(values: FieldValues): number {
    if (!this.shards) return 1;
    this.rejectUnknownFields(values);
    const bound = this.fields.findIndex((field) => values[field.name] === undefined);
    const count = bound < 0 ? this.fields.length : bound;
    const w = this.writer;
    this.writeFields(w, values, count);
    const complete = count === this.fields.length;
    w.bytes(complete ? this.after : this.fields[count]!.before);
    return this.shards.covers(w.buf, w.pos, complete) ? this.shards.count : 1;
  }

  /**
   * A misspelt field would otherwise be ignored and its correct name reported missing (or, when
   * optional to the call, silently make another key); callers passing wider objects use `pickFields`.
   */
  private rejectUnknownFields(values: FieldValues): void {
    for (const name in values) {
      if (!this.fieldNames.has(name)) throw unknownFieldError(name, [...this.fieldNames]);
    }
  }

  /**
   * Writes the salt's room and fields [0, count), each after its constant bytes, into `w` from
   * its start. Returns where the salt hash input ends (the end of the last salt field), or -1 if
   * not all salt fields were written.
   */
  writeFields(w: KeyWriter, values: FieldValues, count: number): number {
    w.pos = this.saltPrefixLength;
    let hashEnd = -1;
    const fields = this.fields;
    const saltFieldCount = this.saltFields.length;
    // Spans of the salt fields are needed only to fill a salt.input template.
    const spans = this.saltInput === undefined ? 0 : saltFieldCount;
    for (let i = 0; i < count; i++) {
      const field = fields[i]!;
      if (field.before.length > 0) w.bytes(field.before);
      const value = values[field.name];
      if (value === undefined)
        throw new FieldValueError(field.name, `missing; the schema needs ${this.fieldList()}`, {
          problem: "missing",
        });
      if (i < spans) this.saltFieldStarts[i] = w.pos;
      field.coder.write(w, value);
      if (i < spans) this.saltFieldEnds[i] = w.pos;
      if (i + 1 === saltFieldCount) hashEnd = w.pos;
    }
    return hashEnd;
  }

  /** The bucket of a partially written key (`writeFields` returned `hashEnd`). */
  bucketAt(w: KeyWriter, hashEnd: number): number {
    return this.hashBucket(w.buf, hashEnd);
  }

  /**
   * The bucket of the key in `bytes` whose salt fields end at `hashEnd`: the hash reads the key
   * in place from after the salt, or, with `salt.input`, the template filled with the fields'
   * encoded bytes (their positions recorded while writing or reading them).
   */
  private hashBucket(bytes: Uint8Array, hashEnd: number): number {
    if (this.saltInput === undefined)
      return this.bucketFunction(bytes, this.saltPrefixLength, hashEnd, this.bucketCount);
    const input = this.inputWriter;
    input.pos = 0;
    for (const part of this.saltInput) {
      input.bytes(
        typeof part === "number"
          ? bytes.subarray(this.saltFieldStarts[part], this.saltFieldEnds[part])
          : part,
      );
    }
    return this.bucketFunction(input.buf, 0, input.pos, this.bucketCount);
  }

  bucketOfKey(key: Buffer): number {
    return this.salt ? this.salt.read(key) : 0;
  }

  bucketOf(values: FieldValues): number {
    this.rejectUnknownFields(values);
    const w = this.writer;
    return this.bucketAt(w, this.writeFields(w, values, this.saltFields.length));
  }

  decode(key: Buffer): DecodedKey {
    let bucket = 0;
    let pos = this.saltPrefixLength;
    if (this.salt) {
      if (key.length < pos)
        throw new KeyDecodeError(`key is shorter than the ${pos}-byte salt`, {
          problem: "truncated",
          at: key.length,
        });
      bucket = this.salt.read(key);
    }
    const values: Record<string, FieldValue> = {};
    let hashEnd = pos;
    const saltFieldCount = this.saltFields.length;
    this.fields.forEach((field, i) => {
      pos = expectBytes(key, pos, field.before, `before field "${field.name}"`);
      if (i < saltFieldCount) this.saltFieldStarts[i] = pos;
      const decoded = field.coder.read(key, pos);
      values[field.name] = decoded.value;
      pos = decoded.end;
      if (i < saltFieldCount) this.saltFieldEnds[i] = pos;
      if (i + 1 === saltFieldCount) hashEnd = pos;
    });
    pos = expectBytes(key, pos, this.after, "after the last field");
    const shard = this.shards?.covers(key, pos, true) ? this.shards.read(key, pos) : undefined;
    if (shard === undefined && pos !== key.length) {
      throw new KeyDecodeError(`${key.length - pos} unexpected byte(s) at byte ${pos}`, {
        problem: "unexpected-bytes",
        at: pos,
      });
    }
    if (this.salt) {
      const expected = this.hashBucket(key, hashEnd);
      if (expected !== bucket) {
        throw new KeyDecodeError(
          `salt says bucket ${bucket} but the fields hash to ${expected} (a key of another schema, or corrupted)`,
          { problem: "salt-mismatch", bucket, expectedBucket: expected },
        );
      }
    }
    return shard === undefined ? { bucket, values } : { bucket, values, shard };
  }

  plan(query: Query): QueryPlan {
    return planQuery(this, query);
  }

  /** A scratch writer for the planner (encoding is synchronous, so one per schema is enough). */
  scratch(): KeyWriter {
    return this.writer;
  }

  fieldList(): string {
    return this.fields.map((f) => f.name).join(", ");
  }
}

function expectBytes(key: Uint8Array, pos: number, expected: Uint8Array, where: string): number {
  for (let i = 0; i < expected.length; i++) {
    if (key[pos + i] !== expected[i]) {
      throw new KeyDecodeError(
        `expected ${JSON.stringify(Buffer.from(expected).toString("latin1"))} ${where} at byte ${pos}`,
        { problem: "unexpected-bytes", at: pos },
      );
    }
  }
  return pos + expected.length;
}
