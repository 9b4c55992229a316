/**
 * How the write-ahead log frames its records, and how a segment file is read back (pure: bytes in,
 * records out). A record:
 *
 *   4 bytes  magic FE 4B 53 01   (0xFE never occurs in UTF-8, so never inside a payload)
 *   u32 LE   payload length
 *   u32 LE   CRC-32 of the payload
 *   u32 LE   CRC-32 of the 12 bytes before it: a damaged length is never trusted
 *   payload
 *
 * Reading tells a torn tail from corruption. A crash mid-append leaves a prefix of whole records:
 * a header shorter than 16 bytes, or a valid header whose payload runs past the end of the file.
 * That tail was never acknowledged and is dropped silently. Any other damage — a payload whose
 * checksum fails, a damaged header, garbage followed by valid records — is corruption: that record
 * (or damaged range) is skipped and reported, and reading resumes at the next valid record, so one
 * flipped bit costs one record, not the segment. A tail of zeros long enough to have held a whole
 * record is corruption too: it may be acknowledged, fsynced records a disk lost, and nothing tells
 * it from an append a power loss cut short, so it is reported, never dropped uncounted.
 */
import { crc32 } from "node:zlib";

export const RECORD_HEADER_BYTES = 16;
const MAGIC = Buffer.from([0xfe, 0x4b, 0x53, 0x01]);

/** A damaged byte range of a segment that was skipped. */
export interface CorruptRange {
  offset: number;
  bytes: number;
}

export interface ParsedSegment {
  payloads: Buffer[];
  /** Bytes after the last whole record that were never a whole record (a crash mid-append). */
  tornBytes: number;
  /** Damaged ranges inside the segment, each skipped (never silently). */
  corrupt: CorruptRange[];
}

/** The header that goes before `payload` in the log. */
export function recordHeader(payload: Uint8Array): Buffer {
  const header = Buffer.allocUnsafe(RECORD_HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(payload.length, 4);
  header.writeUInt32LE(crc32(payload), 8);
  header.writeUInt32LE(crc32(header.subarray(0, 12)), 12);
  return header;
}

export function parseSegment(bytes: Buffer): ParsedSegment {
  const payloads: Buffer[] = [];
  const corrupt: CorruptRange[] = [];
  let tornBytes = 0;
  let at = 0;
  while (at < bytes.length) {
    if (validHeaderAt(bytes, at)) {
      const end = at + RECORD_HEADER_BYTES + bytes.readUInt32LE(at + 4);
      if (end <= bytes.length) {
        const payload = bytes.subarray(at + RECORD_HEADER_BYTES, end);
        if (crc32(payload) === bytes.readUInt32LE(at + 8)) payloads.push(payload);
        else corrupt.push({ offset: at, bytes: end - at });
        at = end;
        continue;
      }
    }
    const next = nextRecord(bytes, at + 1);
    if (next === -1) {
      if (isTornTail(bytes, at)) tornBytes = bytes.length - at;
      else corrupt.push({ offset: at, bytes: bytes.length - at });
      break;
    }
    corrupt.push({ offset: at, bytes: next - at });
    at = next;
  }
  return { payloads, tornBytes, corrupt };
}

function validHeaderAt(bytes: Buffer, at: number): boolean {
  return (
    at + RECORD_HEADER_BYTES <= bytes.length &&
    bytes[at] === MAGIC[0] &&
    bytes[at + 1] === MAGIC[1] &&
    bytes[at + 2] === MAGIC[2] &&
    bytes[at + 3] === MAGIC[3] &&
    crc32(bytes.subarray(at, at + 12)) === bytes.readUInt32LE(at + 12)
  );
}

/** The offset of the next whole, checked record at or after `from`, or -1. */
function nextRecord(bytes: Buffer, from: number): number {
  for (let at = bytes.indexOf(MAGIC, from); at !== -1; at = bytes.indexOf(MAGIC, at + 1)) {
    if (!validHeaderAt(bytes, at)) continue;
    const end = at + RECORD_HEADER_BYTES + bytes.readUInt32LE(at + 4);
    if (
      end <= bytes.length &&
      crc32(bytes.subarray(at + RECORD_HEADER_BYTES, end)) === bytes.readUInt32LE(at + 8)
    ) {
      return at;
    }
  }
  return -1;
}

/** What a crash mid-append leaves: part of a header, or a header whose payload was cut short. */
function isTornTail(bytes: Buffer, at: number): boolean {
  // A valid header is only reached here when its payload runs past the end.
  return bytes.length - at < RECORD_HEADER_BYTES || validHeaderAt(bytes, at);
}
