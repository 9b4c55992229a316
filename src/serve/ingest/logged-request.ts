/**
 * What the write-ahead log keeps of an accepted request: its body as received, plus what a replay
 * needs to turn it back into the same points and the same answer — the tenant of the caller's
 * credentials (points that name none belong to it) and the Idempotency-Key with its outcome, so
 * the key is exactly as durable as the points it guards.
 *
 * Payload: u8 version 2, u32 LE length of a JSON header `{format, tenant?, idempotency?}`, the
 * header, the body.
 */
import type { IdempotencyRecord } from "../wal/idempotency-journal.js";
import { INGEST_BODY_FORMATS, type IngestBodyFormat } from "./points/ingest-body.js";

export interface LoggedRequest {
  format: IngestBodyFormat;
  /** The authenticated tenant; undefined when the service runs without credentials. */
  tenant?: string;
  idempotency?: IdempotencyRecord;
  body: Buffer;
}

const VERSION = 2;

export function encodeLoggedRequest(request: LoggedRequest): Buffer {
  const header = Buffer.from(
    JSON.stringify({ format: request.format, tenant: request.tenant, idempotency: request.idempotency }),
  );
  const payload = Buffer.allocUnsafe(5 + header.length + request.body.length);
  payload[0] = VERSION;
  payload.writeUInt32LE(header.length, 1);
  header.copy(payload, 5);
  request.body.copy(payload, 5 + header.length);
  return payload;
}

/** Throws when the payload is not one this version wrote (the caller dead-letters it). */
export function decodeLoggedRequest(payload: Buffer): LoggedRequest {
  const version = payload[0];
  if (version !== VERSION || payload.length < 5) {
    throw new Error(`write-ahead log record of unknown version ${version}`);
  }
  const headerEnd = 5 + payload.readUInt32LE(1);
  if (headerEnd > payload.length) throw new Error("write-ahead log record header runs past the record");
  const header = JSON.parse(payload.toString("utf8", 5, headerEnd)) as Omit<LoggedRequest, "body">;
  if (!(INGEST_BODY_FORMATS as readonly string[]).includes(header.format)) {
    throw new Error(`write-ahead log record of unknown format ${JSON.stringify(header.format)}`);
  }
  return { ...header, body: payload.subarray(headerEnd) };
}
