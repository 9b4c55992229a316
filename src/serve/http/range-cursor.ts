/**
 * The `/range` paging cursor: the place of the last point returned in the device's total order
 * (newest first; points of one millisecond by log segment, then by position in their row), as
 * opaque base64url text. A timestamp alone cannot page exactly: several points may share it.
 */
export interface RangeCursor {
  ts: number;
  segment: number;
  index: number;
}

export function encodeRangeCursor(cursor: RangeCursor): string {
  return Buffer.from(`${cursor.ts}.${cursor.segment}.${cursor.index}`).toString("base64url");
}

/** Throws a RangeError for text that is not a cursor this service gave out. */
export function decodeRangeCursor(text: string): RangeCursor {
  const match = /^(\d{1,16})\.(\d{1,16})\.(\d{1,9})$/.exec(Buffer.from(text, "base64url").toString("latin1"));
  const [ts, segment, index] = (match?.slice(1) ?? []).map(Number);
  if (
    ts === undefined ||
    segment === undefined ||
    index === undefined ||
    !Number.isSafeInteger(ts) ||
    !Number.isSafeInteger(segment)
  ) {
    throw new RangeError(
      `cursor ${JSON.stringify(text.slice(0, 64))}: not a cursor this service returned as "next"`,
    );
  }
  return { ts, segment, index };
}

/** Whether a point comes after the cursor in the order pages are returned in. */
export function comesAfter(point: RangeCursor, cursor: RangeCursor): boolean {
  if (point.ts !== cursor.ts) return point.ts < cursor.ts;
  if (point.segment !== cursor.segment) return point.segment > cursor.segment;
  return point.index > cursor.index;
}
