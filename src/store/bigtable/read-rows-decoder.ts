/**
 * Turns Bigtable ReadRows responses (cell chunks, `google/bigtable/v2/bigtable.proto`) into store
 * rows: one family's cells, the first (newest) version of each qualifier. A chunk carries a row
 * key only when a row starts, a family or qualifier only when it changes, and a value that may be
 * split over chunks (`value_size` set on all but the last); `reset_row` drops the row in progress
 * and `commit_row` completes it. Pure: no I/O, so it is checked against the official client's
 * `ChunkTransformer` on random chunk streams.
 */
import type { StoreRow } from "../store.js";

type Bytes = Uint8Array | null | undefined;

/** A ReadRows `CellChunk` as the generated client decodes it (fields absent or at their defaults). */
export interface CellChunk {
  rowKey?: Bytes;
  familyName?: { value?: string | null } | null;
  qualifier?: { value?: Bytes } | null;
  /** The cell's version, on its first chunk (the wire decoder gives a number). */
  timestampMicros?: number | null;
  value?: Bytes;
  valueSize?: number | null;
  resetRow?: boolean | null;
  commitRow?: boolean | null;
}

export interface ReadRowsResponse {
  chunks?: CellChunk[] | null;
  lastScannedRowKey?: Bytes;
}

/** The service broke the ReadRows protocol: the stream cannot be trusted past this point. */
export class ReadRowsProtocolError extends Error {
  override readonly name = "ReadRowsProtocolError";
}

const EMPTY = Buffer.alloc(0);

/** A Buffer view of decoded bytes (no copy). */
function asBuffer(bytes: Bytes): Buffer {
  if (bytes === null || bytes === undefined) return EMPTY;
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

const hasBytes = (bytes: Bytes): boolean => bytes !== null && bytes !== undefined && bytes.length > 0;

export class ReadRowsDecoder {
  /** The last key the service vouched for (a committed row or a scanned key): a retry resumes after it. */
  private resumeAfter: Buffer | undefined;
  private rowKey: Buffer | undefined;
  private cells = new Map<string, Buffer>();
  /** The kept cells' versions, when asked for (undefined otherwise). */
  private timestamps: Map<string, number> | undefined;
  private family: string | undefined;
  private qualifier: string | undefined;
  /** Parts of a value split over chunks, and the cell's qualifier when it is kept (first version, our family). */
  private valueParts: Buffer[] = [];
  private keptQualifier: string | undefined;

  constructor(
    private readonly keptFamily: string,
    /** Give each row its cells' versions (`StoreRow.timestamps`). */
    private readonly withTimestamps = false,
  ) {}

  /** The key after which a retried read resumes; undefined before any row. */
  get lastKey(): Buffer | undefined {
    return this.resumeAfter;
  }

  /** The rows this response completes, in key order. */
  decode(response: ReadRowsResponse): StoreRow[] {
    const rows: StoreRow[] = [];
    for (const chunk of response.chunks ?? []) {
      const row = this.chunk(chunk);
      if (row !== undefined) rows.push(row);
    }
    if (hasBytes(response.lastScannedRowKey) && this.rowKey === undefined) {
      const scanned = asBuffer(response.lastScannedRowKey);
      if (this.resumeAfter === undefined || Buffer.compare(scanned, this.resumeAfter) > 0) {
        this.resumeAfter = scanned;
      }
    }
    return rows;
  }

  /** The stream ended: a row begun and never committed means responses were lost. */
  finish(): void {
    if (this.rowKey !== undefined) throw this.violation("the stream ended inside a row (no commit)");
  }

  /** Forget the row in progress (its call failed; the retry re-reads it whole). */
  abandonRow(): void {
    this.startRow(undefined);
  }

  private chunk(chunk: CellChunk): StoreRow | undefined {
    if (chunk.resetRow) {
      if (this.rowKey === undefined) throw this.violation("reset_row outside a row");
      if (hasBytes(chunk.rowKey) || chunk.familyName || chunk.qualifier || hasBytes(chunk.value)) {
        throw this.violation("reset_row carries data");
      }
      this.startRow(undefined);
      return undefined;
    }
    if (this.valueParts.length > 0) this.continueValue(chunk);
    else this.beginCell(chunk);
    const valueSize = chunk.valueSize ?? 0;
    if (valueSize > 0) {
      if (chunk.commitRow) throw this.violation("commit_row on a chunk whose value continues");
      return undefined;
    }
    this.endCell();
    if (!chunk.commitRow) return undefined;
    if (this.rowKey === undefined) throw this.violation("commit_row outside a row");
    return this.commit(this.rowKey);
  }

  private beginCell(chunk: CellChunk): void {
    if (hasBytes(chunk.rowKey)) {
      const key = asBuffer(chunk.rowKey);
      if (this.rowKey === undefined) {
        if (this.resumeAfter !== undefined && Buffer.compare(key, this.resumeAfter) <= 0) {
          throw this.violation("row keys must increase");
        }
        this.startRow(key);
      } else if (!key.equals(this.rowKey)) {
        throw this.violation("a new row key before the row in progress was committed");
      }
    } else if (this.rowKey === undefined) {
      throw this.violation("a row's first chunk has no row key");
    }
    if (chunk.familyName) {
      if (!chunk.qualifier) throw this.violation("a family without a qualifier");
      this.family = chunk.familyName.value ?? "";
    }
    if (chunk.qualifier) this.qualifier = asBuffer(chunk.qualifier.value).toString();
    if (this.family === undefined || this.qualifier === undefined) {
      throw this.violation("a row's first cell has no family or qualifier");
    }
    // Versions of a column arrive newest first: keep the first.
    const kept = this.family === this.keptFamily && !this.cells.has(this.qualifier);
    this.keptQualifier = kept ? this.qualifier : undefined;
    if (kept && this.timestamps !== undefined)
      this.timestamps.set(this.qualifier, Number(chunk.timestampMicros ?? 0));
    this.valueParts.push(asBuffer(chunk.value));
  }

  private continueValue(chunk: CellChunk): void {
    if (hasBytes(chunk.rowKey) || chunk.familyName || chunk.qualifier) {
      throw this.violation("a split value's continuation names a row, family or qualifier");
    }
    this.valueParts.push(asBuffer(chunk.value));
  }

  private endCell(): void {
    if (this.keptQualifier !== undefined) {
      const parts = this.valueParts;
      this.cells.set(this.keptQualifier, parts.length === 1 ? parts[0]! : Buffer.concat(parts));
    }
    this.valueParts = [];
  }

  private commit(key: Buffer): StoreRow {
    const row: StoreRow =
      this.timestamps === undefined
        ? { key, cells: this.cells }
        : { key, cells: this.cells, timestamps: this.timestamps };
    this.resumeAfter = key;
    this.startRow(undefined);
    return row;
  }

  private startRow(key: Buffer | undefined): void {
    this.rowKey = key;
    // Cells are only added inside a row, so a map is made when one starts (a committed row keeps its own).
    if (key !== undefined) {
      this.cells = new Map();
      if (this.withTimestamps) this.timestamps = new Map();
    }
    this.family = undefined;
    this.qualifier = undefined;
    this.valueParts = [];
  }

  private violation(what: string): ReadRowsProtocolError {
    const after = this.resumeAfter === undefined ? "" : ` (after row ${this.resumeAfter.toString("hex")})`;
    return new ReadRowsProtocolError(`ReadRows response broke the protocol: ${what}${after}`);
  }
}
