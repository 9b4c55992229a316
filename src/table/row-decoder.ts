/**
 * A table shared with other code holds rows keyspread did not write: inside a bucket's range a
 * key of another format, a wrong salt, a non-numeric timestamp. A read decodes each row; one that
 * does not decode is skipped and counted (reads go on, and say so), or with `strict` fails the
 * read naming the table, the key and the reason. Never a silent skip, never an anonymous failure.
 */
import { isPrintableAscii } from "../keys/bytes.js";
import { KeyDecodeError, type KeyDecodeProblem } from "../keys/errors.js";
import type { DecodedKey, FieldValue, FieldValues, KeySchema } from "../keys/types.js";
import type { StoreRow } from "../store/store.js";

/** A row read back; `D` types its decoded values (a schema compiled from a literal spec has them). */
export interface TableRow<D extends Record<string, FieldValue> = Record<string, FieldValue>> {
  key: Buffer;
  bucket: number;
  values: D;
  cells: Map<string, Buffer>;
}

/**
 * A row the schema cannot decode: its key (hex) and why; `problem` and `at` (the byte where reading
 * failed) when the key decoder named them.
 */
export interface UndecodableRow {
  key: string;
  reason: string;
  problem?: KeyDecodeProblem;
  at?: number;
}

/** Something a caller should hear about though the operation went on. */
export type TableWarning =
  | {
      kind: "undecodable-rows";
      table: string;
      /** The schema the rows do not decode under. */
      schema: string;
      count: number;
      first: UndecodableRow[];
      message: string;
    }
  | {
      kind: "salt-out-of-range";
      table: string;
      count: number;
      /** The schema's bucket count: salts from 0 to buckets − 1 are inside. */
      buckets: number;
      first: { index: number; key: string; bucket: number }[];
      message: string;
    };

/** The default warning sink: Node's process warnings (stderr unless the app listens). */
export function emitTableWarning(warning: TableWarning): void {
  process.emitWarning(warning.message, { type: "KeyspreadWarning", code: warning.kind });
}

/** A strict read met a row it cannot decode; `problem` and `at` as in {@link UndecodableRow}. */
export class UndecodableRowError extends Error {
  override readonly name = "UndecodableRowError";
  readonly problem: KeyDecodeProblem | undefined;
  readonly at: number | undefined;
  constructor(
    readonly table: string,
    readonly key: Buffer,
    readonly reason: string,
    readonly schema: string,
    cause?: unknown,
  ) {
    super(
      `${table}: row ${describeKey(key)} does not decode under schema "${schema}": ${reason} (a strict read stops here; without strict such rows are skipped and counted)`,
    );
    this.problem = cause instanceof KeyDecodeError ? cause.problem : undefined;
    this.at = cause instanceof KeyDecodeError ? cause.at : undefined;
  }
}

/** Rows listed in reports and warnings; the count covers them all. */
const LISTED = 10;

export class RowDecoder<D extends Record<string, FieldValue> = Record<string, FieldValue>> {
  /** Rows skipped so far. */
  count = 0;
  readonly first: UndecodableRow[] = [];

  constructor(
    private readonly schema: KeySchema<FieldValues, D>,
    private readonly table: string,
    private readonly strict: boolean,
  ) {}

  /** The row decoded, or undefined when it does not decode (counted; thrown when strict). */
  decode(row: StoreRow): TableRow<D> | undefined {
    let decoded: DecodedKey<D>;
    try {
      decoded = this.schema.decode(row.key);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (this.strict)
        throw new UndecodableRowError(this.table, row.key, reason, this.schema.spec.name, error);
      this.count++;
      if (this.first.length < LISTED)
        this.first.push({ key: row.key.toString("hex"), reason, ...decodeProblem(error) });
      return undefined;
    }
    return { key: row.key, bucket: decoded.bucket, values: decoded.values, cells: row.cells };
  }

  /** The warning for the rows skipped, if any. */
  warning(): TableWarning | undefined {
    if (this.count === 0) return undefined;
    const listed = this.first
      .slice(0, 3)
      .map(({ key, reason }) => `${describeKey(Buffer.from(key, "hex"))} (${reason})`)
      .join("; ");
    return {
      kind: "undecodable-rows",
      table: this.table,
      schema: this.schema.spec.name,
      count: this.count,
      first: [...this.first],
      message: `${this.table}: skipped ${this.count} row(s) in the read's ranges that schema "${this.schema.spec.name}" cannot decode (written by other code?); first: ${listed}. Read with strict to fail instead.`,
    };
  }
}

function decodeProblem(error: unknown): Pick<UndecodableRow, "problem" | "at"> {
  if (!(error instanceof KeyDecodeError)) return {};
  return error.at === undefined ? { problem: error.problem } : { problem: error.problem, at: error.at };
}

/** A key for messages: quoted text when printable ASCII, else `hex …`. */
export function describeKey(key: Uint8Array): string {
  const bytes = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  return isPrintableAscii(bytes) ? JSON.stringify(bytes.toString("latin1")) : `hex ${bytes.toString("hex")}`;
}
