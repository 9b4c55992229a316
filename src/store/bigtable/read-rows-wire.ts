/**
 * Decodes a ReadRows response message from its protobuf wire bytes into the chunks the
 * `ReadRowsDecoder` reads (`google/bigtable/v2/bigtable.proto`: ReadRowsResponse, CellChunk).
 * Only what rows are made of is kept: row key, family, qualifier, value, value size, reset and
 * commit, a cell's timestamp, and the last scanned row key; labels, stats and unknown fields are skipped.
 * Byte fields are views of the message (no copy). The generated decoder builds a message object,
 * two wrapper objects and a 64-bit timestamp object per chunk, a read's largest client cost after
 * the gRPC call itself. Pure: checked against the generated encoder on random messages.
 */
import type { CellChunk, ReadRowsResponse } from "./read-rows-decoder.js";

/** The response broke the protobuf wire format (truncated, or a length past its message). */
export class ReadRowsWireError extends Error {
  override readonly name = "ReadRowsWireError";
}

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

const EMPTY: Buffer = Buffer.alloc(0);

/**
 * Reads one message's fields in place. A nested message is read by narrowing `end` to it and
 * restoring it after, so a response's chunks need no reader (and a field no bounds pair) of their own.
 */
class WireReader {
  at: number;
  /** Where the payload of the last length-delimited field stepped over (`span`) starts; it ends at `at`. */
  spanStart = 0;

  constructor(
    readonly bytes: Buffer,
    public end: number,
  ) {
    this.at = 0;
  }

  get done(): boolean {
    return this.at >= this.end;
  }

  /** A varint as a number: exact up to 2^53, which every length and size here is far below. */
  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.at >= this.end) throw new ReadRowsWireError("a varint runs past the end of its message");
      const byte = this.bytes[this.at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
    throw new ReadRowsWireError("a varint longer than 10 bytes");
  }

  /** An int32 varint: its low 32 bits, signed (a negative value arrives sign-extended to 10 bytes). */
  int32(): number {
    let value = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      if (this.at >= this.end) throw new ReadRowsWireError("a varint runs past the end of its message");
      const byte = this.bytes[this.at++]!;
      if (shift < 32) value |= (byte & 0x7f) << shift;
      if (byte < 0x80) return value | 0;
    }
    throw new ReadRowsWireError("a varint longer than 10 bytes");
  }

  /** Steps over a length-delimited field; its payload is `[spanStart, at)`. */
  span(): void {
    const length = this.varint();
    const start = this.at;
    if (length > this.end - start)
      throw new ReadRowsWireError("a field's length runs past the end of its message");
    this.spanStart = start;
    this.at = start + length;
  }

  bytesField(): Buffer {
    this.span();
    return this.bytes.subarray(this.spanStart, this.at);
  }

  /** Reads the length-delimited field here as a message: `read` sees only its fields. */
  nested<T>(read: (reader: WireReader) => T): T {
    this.span();
    const outer = this.end;
    this.end = this.at;
    this.at = this.spanStart;
    // A read that throws fails the whole message: `end` needs restoring only after one that returns.
    const value = read(this);
    this.end = outer;
    return value;
  }

  skip(wireType: number): void {
    if (wireType === VARINT) this.varint();
    else if (wireType === LENGTH_DELIMITED) this.span();
    else if (wireType === FIXED64 || wireType === FIXED32) {
      const size = wireType === FIXED64 ? 8 : 4;
      if (size > this.end - this.at)
        throw new ReadRowsWireError("a fixed-size field runs past the end of its message");
      this.at += size;
    } else throw new ReadRowsWireError(`wire type ${wireType} is not one this message uses`);
  }
}

/** Field 1 of a wrapper message (`StringValue`, `BytesValue`): its value's bytes, empty when absent. */
function wrappedValue(reader: WireReader): Buffer {
  let value = EMPTY;
  while (!reader.done) {
    const tag = reader.varint();
    if (tag === ((1 << 3) | LENGTH_DELIMITED)) value = reader.bytesField();
    else reader.skip(tag & 7);
  }
  return value;
}

function cellChunk(fields: WireReader): CellChunk {
  const chunk: CellChunk = {};
  while (!fields.done) {
    const tag = fields.varint();
    switch (tag) {
      case (1 << 3) | LENGTH_DELIMITED:
        chunk.rowKey = fields.bytesField();
        break;
      case (2 << 3) | LENGTH_DELIMITED:
        chunk.familyName = { value: fields.nested(wrappedValue).toString("utf8") };
        break;
      case (3 << 3) | LENGTH_DELIMITED:
        chunk.qualifier = { value: fields.nested(wrappedValue) };
        break;
      case (4 << 3) | VARINT:
        // Microseconds: exact as a number until the year 2255.
        chunk.timestampMicros = fields.varint();
        break;
      case (6 << 3) | LENGTH_DELIMITED:
        chunk.value = fields.bytesField();
        break;
      case (7 << 3) | VARINT:
        chunk.valueSize = fields.int32();
        break;
      case (8 << 3) | VARINT:
        chunk.resetRow = fields.varint() !== 0;
        break;
      case (9 << 3) | VARINT:
        chunk.commitRow = fields.varint() !== 0;
        break;
      default:
        fields.skip(tag & 7);
    }
  }
  return chunk;
}

export function decodeReadRowsResponse(bytes: Buffer): ReadRowsResponse {
  const reader = new WireReader(bytes, bytes.length);
  const chunks: CellChunk[] = [];
  const response: ReadRowsResponse = { chunks };
  while (!reader.done) {
    const tag = reader.varint();
    if (tag === ((1 << 3) | LENGTH_DELIMITED)) chunks.push(reader.nested(cellChunk));
    else if (tag === ((2 << 3) | LENGTH_DELIMITED)) response.lastScannedRowKey = reader.bytesField();
    else reader.skip(tag & 7);
  }
  return response;
}
