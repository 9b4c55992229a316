/**
 * Write shards: a hot logical row (a counter, a celebrity entity) spread over `count` physical
 * rows by a suffix after the key's last segment, so the rows can split onto different tablets
 * where one row never can. The suffix is last, so a logical row's shards are adjacent: a read of
 * the entity stays one contiguous range per bucket.
 */
import { KeyWriter } from "./codec.js";
import { FieldValueError, KeyDecodeError, SchemaError } from "./errors.js";
import type { FieldValues, KeySchema, WriteShardsSpec } from "./types.js";

/** What write shards need of the compiled schema (implemented by CompiledSchema). */
export interface ShardedKeyLayout {
  readonly fields: readonly { name: string; before: Uint8Array }[];
  readonly after: Uint8Array;
  readonly saltPrefixLength: number;
  readonly layout: "text" | "binary";
  /** The text layout's separator byte. */
  readonly separator: number;
  writeFields(w: KeyWriter, values: FieldValues, count: number): number;
}

/** A write-sharded entity's leading key bytes (after the salt); `complete` when it binds every field. */
interface EntityPrefix {
  bytes: Buffer;
  complete: boolean;
}

/** A shard the caller passed is wrong for the row, or a sharded row was encoded without one. */
export class WriteShardError extends Error {
  override readonly name = "WriteShardError";
}

export class WriteShards {
  readonly count: number;
  /** Bytes before the shard number: the separator (text) or none (binary). */
  readonly lead: Buffer;
  /** Bytes the suffix adds to a key. */
  readonly suffixLength: number;
  private readonly digits: number;
  /** Undefined: every row is sharded. */
  private readonly entities: readonly EntityPrefix[] | undefined;

  constructor(
    spec: WriteShardsSpec,
    private readonly key: ShardedKeyLayout,
  ) {
    this.count = spec.count;
    const text = key.layout === "text";
    this.lead = text ? Buffer.of(key.separator) : Buffer.alloc(0);
    this.digits = text ? String(spec.count - 1).length : 0;
    this.suffixLength = shardSuffixLength(key.layout, spec.count);
    this.entities = spec.entities?.map((entity, i) => this.entityPrefix(entity, i));
  }

  /**
   * The entity's fields written as a key starts, then what follows them in every key of the
   * entity (the next field's separator and literals, or the trailing literals), so that a key
   * starts with these bytes exactly when its leading fields equal the entity's: fields are
   * self-delimiting there, as the planner's prefix ranges rely on.
   */
  private entityPrefix(entity: FieldValues, index: number): EntityPrefix {
    const bound = Object.keys(entity).length;
    const w = new KeyWriter(256);
    try {
      this.key.writeFields(w, entity, bound);
    } catch (error) {
      const field = error instanceof FieldValueError ? `.${error.field}` : "";
      throw new SchemaError(`writeShards.entities[${index}]${field}`, (error as Error).message, {
        problem: "write-shards",
      });
    }
    const complete = bound === this.key.fields.length;
    w.bytes(complete ? this.key.after : this.key.fields[bound]!.before);
    return { bytes: Buffer.from(w.buf.subarray(this.key.saltPrefixLength, w.pos)), complete };
  }

  /**
   * Whether rows whose key starts with `key[saltPrefixLength, end)` (the leading fields a write or
   * a query binds, then what follows them; `complete`: every field and the trailing literals) may
   * be a sharded entity's: one of the two byte strings starts with the other, and two complete
   * keys are equal.
   */
  covers(key: Uint8Array, end: number, complete: boolean): boolean {
    if (this.entities === undefined) return true;
    const from = this.key.saltPrefixLength;
    const length = end - from;
    return this.entities.some((entity) => {
      if (complete && entity.complete && length !== entity.bytes.length) return false;
      const shared = Math.min(length, entity.bytes.length);
      if (complete && length < entity.bytes.length) return false;
      for (let i = 0; i < shared; i++) if (key[from + i] !== entity.bytes[i]) return false;
      return true;
    });
  }

  /** Appends shard `shard` of the logical key just written; `shard` must be in [0, count). */
  write(w: KeyWriter, shard: number): void {
    if (!(Number.isInteger(shard) && shard >= 0 && shard < this.count)) {
      throw new WriteShardError(
        `shard ${shard} is not allowed; this row is write-sharded over ${this.count} rows: 0..${this.count - 1}`,
      );
    }
    w.ensure(this.suffixLength);
    if (this.digits === 0) {
      w.buf[w.pos++] = shard;
      return;
    }
    w.bytes(this.lead);
    const text = String(shard).padStart(this.digits, "0");
    for (let i = 0; i < text.length; i++) w.buf[w.pos++] = text.charCodeAt(i);
  }

  /** The shard in the suffix at `pos`, which must run to the end of the key. */
  read(key: Uint8Array, pos: number): number {
    if (key.length - pos !== this.suffixLength) {
      throw new KeyDecodeError(
        `expected a ${this.suffixLength}-byte shard suffix at byte ${pos}, found ${key.length - pos} byte(s)`,
        { problem: "bad-shard", at: pos },
      );
    }
    let shard: number;
    if (this.digits === 0) shard = key[pos]!;
    else {
      if (key[pos] !== this.lead[0])
        throw new KeyDecodeError(`expected the separator before the shard at byte ${pos}`, {
          problem: "bad-shard",
          at: pos,
        });
      const text = Buffer.from(key.subarray(pos + 1)).toString("latin1");
      shard = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
    }
    if (!(shard < this.count)) {
      throw new KeyDecodeError(`shard suffix at byte ${pos} is not a shard 0..${this.count - 1}`, {
        problem: "bad-shard",
        at: pos,
      });
    }
    return shard;
  }
}

/** The key one write of the row `values` goes to: for a sharded row, the shard `choose` picks from its count. */
export function keyForWrite(
  schema: KeySchema,
  values: FieldValues,
  choose: (count: number) => number,
): Buffer {
  const count = schema.shardsOf(values);
  return count === 1 ? schema.encode(values) : schema.encode(values, choose(count));
}

/** Every physical key of the row `values`: its shards' keys, or its one key. */
export function physicalKeys(schema: KeySchema, values: FieldValues): Buffer[] {
  const count = schema.shardsOf(values);
  if (count === 1) return [schema.encode(values)];
  return Array.from({ length: count }, (_, shard) => schema.encode(values, shard));
}

/** Bytes a shard suffix adds to a key: the separator and the digits of `count − 1` (text), one byte (binary). */
export function shardSuffixLength(layout: "text" | "binary", count: number): number {
  return layout === "text" ? 1 + String(count - 1).length : 1;
}
