/**
 * The items of an ingest body, a slice of about `sliceChars` characters at a time, before any
 * point is checked. This is the one reading of a body: the live request and the write-ahead log's
 * replay both go through it, so a body is taken or refused the same way in both, wherever its
 * slices fall.
 *
 * NDJSON: every line holds exactly one JSON value; lines of only spaces, tabs and `\r` are
 * ignored. A line with two values, or a value split over two lines, is a bad line (raw newlines
 * cannot occur inside JSON strings, so lines are found without parsing). JSON: one value (a point)
 * or an array of points, whose top-level elements are found by a scan of strings and brackets and
 * parsed a slice at a time, never in one call over the whole body.
 *
 * One item is at most MAX_ITEM_CHARS characters: a point is far smaller, and one JSON.parse over
 * megabytes would stall every other request.
 */
import type { IngestBodyFormat } from "./ingest-body.js";

/** One body item: the parsed value, or why it has none. `line`: NDJSON line, or JSON array position (1-based). */
export type BodyItem = { line: number; value: unknown } | { line: number; problem: string };

export const MAX_ITEM_CHARS = 1 << 20;
export const DEFAULT_SLICE_CHARS = 1 << 17;

export function* bodyItemSlices(
  text: string,
  format: IngestBodyFormat,
  sliceChars: number = DEFAULT_SLICE_CHARS,
): Generator<BodyItem[]> {
  if (format === "ndjson") yield* ndjsonSlices(text, sliceChars);
  else yield* jsonSlices(text, sliceChars);
}

function* ndjsonSlices(text: string, sliceChars: number): Generator<BodyItem[]> {
  let line = 1;
  for (let start = 0; start < text.length; ) {
    const items: BodyItem[] = [];
    const sliceEnd = start + sliceChars;
    do {
      const newline = text.indexOf("\n", start);
      const end = newline === -1 ? text.length : newline;
      if (!isBlank(text, start, end)) items.push(parseItem(text, start, end, line));
      start = end + 1;
      line++;
    } while (start < sliceEnd && start < text.length);
    yield items;
  }
}

function isBlank(text: string, start: number, end: number): boolean {
  for (let at = start; at < end; at++) {
    const code = text.charCodeAt(at);
    if (code !== SPACE && code !== TAB && code !== CR) return false;
  }
  return true;
}

function parseItem(text: string, start: number, end: number, line: number): BodyItem {
  if (end - start > MAX_ITEM_CHARS) return tooLong(line, end - start);
  try {
    return { line, value: JSON.parse(text.slice(start, end)) };
  } catch (error) {
    return { line, problem: `not valid JSON: ${(error as Error)?.message ?? String(error)}` };
  }
}

function tooLong(line: number, chars: number): BodyItem {
  return { line, problem: `${chars} characters: one point is at most ${MAX_ITEM_CHARS}` };
}

function* jsonSlices(text: string, sliceChars: number): Generator<BodyItem[]> {
  let at = skipWhitespace(text, 0);
  if (at === text.length) return;
  if (text.charCodeAt(at) !== OPEN_BRACKET) {
    yield [parseItem(text, at, text.length, 1)];
    return;
  }
  at = skipWhitespace(text, at + 1);
  if (text.charCodeAt(at) === CLOSE_BRACKET) {
    yield* trailing(text, at + 1, 1);
    return;
  }
  let position = 1;
  for (;;) {
    const quick = quickSlice(text, at, sliceChars);
    if (quick !== undefined) {
      yield quick.values.map((value, index) => ({ line: position + index, value }));
      position += quick.values.length;
      at = quick.next;
      continue;
    }
    const spans: [number, number][] = [];
    const sliceEnd = at + sliceChars;
    let last: BodyItem | undefined;
    do {
      const end = elementEnd(text, at);
      if (end === -1) {
        last = { line: position, problem: "not valid JSON: brackets or quotes do not close" };
        break;
      }
      if (end - at > MAX_ITEM_CHARS) {
        last = tooLong(position, end - at);
        break;
      }
      spans.push([at, end]);
      position++;
      if (text.charCodeAt(end) === CLOSE_BRACKET) {
        yield parseSpans(text, spans, position - spans.length);
        yield* trailing(text, end + 1, position - 1);
        return;
      }
      at = end + 1;
    } while (at < sliceEnd);
    const items = parseSpans(text, spans, position - spans.length);
    if (last !== undefined) {
      yield [...items, last];
      return;
    }
    yield items;
  }
}

/**
 * The common case without a scan: the elements from `at` up to the first `},` past the slice's
 * size, parsed in one call. That parse succeeds only if the `},` ends an element — cut inside a
 * string, the text would end in the string; cut inside an element, its brackets would not close —
 * so the slice is exactly whole elements, each under MAX_ITEM_CHARS as the slice is. Undefined
 * (scan instead) when there is no such `},` within MAX_ITEM_CHARS, or the parse fails.
 */
function quickSlice(
  text: string,
  at: number,
  sliceChars: number,
): { values: unknown[]; next: number } | undefined {
  const close = text.indexOf("},", at + sliceChars);
  if (close === -1 || close + 1 - at > MAX_ITEM_CHARS) return undefined;
  try {
    return { values: JSON.parse(`[${text.slice(at, close + 1)}]`) as unknown[], next: close + 2 };
  } catch {
    return undefined;
  }
}

/** Anything but whitespace after the array's `]` makes the body more than one value. */
function* trailing(text: string, from: number, position: number): Generator<BodyItem[]> {
  if (skipWhitespace(text, from) < text.length) {
    yield [{ line: position, problem: "not valid JSON: text after the array's closing ]" }];
  }
}

/**
 * The elements `spans` (consecutive, separated by single top-level commas) parsed in one call as
 * an array; when that fails, each alone, so the problems name their positions. The scan found
 * the commas outside strings at bracket depth 0, so once the whole parses, each span is one value.
 */
function parseSpans(text: string, spans: [number, number][], firstPosition: number): BodyItem[] {
  const [first] = spans;
  const last = spans.at(-1);
  if (first === undefined || last === undefined) return [];
  try {
    const values = JSON.parse(`[${text.slice(first[0], last[1])}]`) as unknown[];
    if (values.length === spans.length) {
      return values.map((value, index) => ({ line: firstPosition + index, value }));
    }
  } catch {
    // Find the bad elements one by one.
  }
  return spans.map(([start, end], index) => parseItem(text, start, end, firstPosition + index));
}

/**
 * The index of the `,` or `]` that ends the array element starting at `from` (bracket depth 0,
 * outside strings), or -1 when the text ends first or a bracket closes what was never opened.
 */
function elementEnd(text: string, from: number): number {
  let depth = 0;
  for (let at = from; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      at = stringEnd(text, at);
      if (at === -1) return -1;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      if (depth === 0) return code === CLOSE_BRACKET ? at : -1;
      depth--;
    } else if (code === COMMA && depth === 0) return at;
  }
  return -1;
}

/** The index of the quote closing the string opened at `open`, or -1. */
function stringEnd(text: string, open: number): number {
  for (let quote = text.indexOf('"', open + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}

function skipWhitespace(text: string, from: number): number {
  let at = from;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code !== SPACE && code !== TAB && code !== CR && code !== LF) break;
    at++;
  }
  return at;
}

const TAB = 9;
const LF = 10;
const CR = 13;
const SPACE = 32;
const QUOTE = 34;
const COMMA = 44;
const BACKSLASH = 92;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
