import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatAccessLine } from "../../access-log/access-line.js";
import { type AccessRecord, parseAccessJsonRecord } from "../../access-log/access-record.js";
import { parseKeyText } from "../../keys/key-text.js";
import { ACCESS_OPS, CanonicalAccessLine } from "./canonical-access-line.js";

function outcome(parse: () => AccessRecord): AccessRecord | string {
  try {
    return parse();
  } catch (error) {
    return (error as Error).message;
  }
}

/** The line's record (or its error) when `read` accepts it from inside a larger buffer, else undefined. */
function readInPlace(line: string): AccessRecord | string | undefined {
  const bytes = Buffer.from(`"}\n${line}\n{"ts":1,`, "utf8");
  const start = 3;
  const reader = new CanonicalAccessLine();
  return reader.read(bytes, start, start + Buffer.byteLength(line))
    ? outcome(() => reader.toRecord(bytes, parseKeyText))
    : undefined;
}

/** Mostly the plain numbers the common form allows, some it does not. */
const plainNumber = fc.oneof(
  { arbitrary: fc.nat({ max: 2_000_000_000_000 }).map(String), weight: 4 },
  {
    arbitrary: fc.integer({ min: 0, max: 99_999 }).map((hundredths) => (hundredths / 100).toFixed(2)),
    weight: 4,
  },
  fc.double({ min: 0, max: 1e6, noNaN: true }).map(String),
  fc.constantFrom(
    "0",
    "0.5",
    "999999999999999",
    "123456789012.345",
    "0.00000000000001",
    "4.10",
    "1796018541873.25",
  ),
  fc.constantFrom("00", "01", "1.", ".5", "1e3", "-1", "1.2.3", "1000000000000000", "0.000000000000001"),
);

/** Mostly keys the common form allows, some that need unescaping, decoding or a hex parse. */
const keyText = fc.oneof(
  { arbitrary: fc.stringMatching(/^[ -~]{0,12}$/), weight: 4 },
  fc.constantFrom("t01#e0001234", "hex:00ff", "hex:0", "é", 'a\\"b', "a\\\\b", "tab\\t", "\u007f", ""),
);

const mostly = <T>(usual: T, ...others: T[]) =>
  fc.oneof({ arbitrary: fc.constant(usual), weight: 3 * others.length }, fc.constantFrom(...others));

/** Lines near the common form: its fields with numbers and keys of every kind, some fields out of place. */
const nearCanonicalLine = fc
  .record({
    ts: plainNumber,
    key: keyText,
    op: fc.oneof(
      { arbitrary: fc.constantFrom(...ACCESS_OPS), weight: 3 },
      fc.constantFrom("erase", "reads", "Read"),
    ),
    bytes: fc.option(plainNumber, { nil: undefined }),
    latencyMs: fc.option(plainNumber, { nil: undefined }),
    tail: mostly("", " ", ',"node":"n1"', "}", ",", "\r"),
    swapped: mostly(false, true),
  })
  .map(({ ts, key, op, bytes, latencyMs, tail, swapped }) => {
    const optional =
      (bytes === undefined ? "" : `,"bytes":${bytes}`) +
      (latencyMs === undefined ? "" : `,"latencyMs":${latencyMs}`);
    const head = swapped ? `{"key":"${key}","ts":${ts}` : `{"ts":${ts},"key":"${key}"`;
    return `${head},"op":"${op}"${optional}${tail === "}" ? "" : tail}}`;
  });

/** Any such line with one character changed, dropped or repeated. */
const mutatedLine = fc
  .tuple(
    nearCanonicalLine,
    fc.nat(),
    fc.constantFrom("change", "drop", "repeat"),
    fc.constantFrom(...'{}":,.0123456789aeé\\ \t-'),
  )
  .map(([line, position, edit, char]) => {
    const at = position % line.length;
    if (edit === "drop") return line.slice(0, at) + line.slice(at + 1);
    if (edit === "repeat") return line.slice(0, at) + line[at] + line.slice(at);
    return line.slice(0, at) + char + line.slice(at + 1);
  });

describe("canonical access line", () => {
  it("reads every line it accepts exactly as the full parser reads it", () => {
    fc.assert(
      fc.property(fc.oneof(nearCanonicalLine, mutatedLine), (line) => {
        const record = readInPlace(line);
        if (record !== undefined) expect(record).toEqual(outcome(() => parseAccessJsonRecord(line)));
      }),
      { numRuns: 5000 },
    );
    // Not vacuous: many of the lines drawn are in the common form.
    const accepted = fc
      .sample(nearCanonicalLine, { numRuns: 1000, seed: 28 })
      .filter((line) => readInPlace(line));
    expect(accepted.length).toBeGreaterThan(200);
  });

  it("accepts what the access log writer writes for text keys and numbers of up to 15 digits", () => {
    const record = fc.record(
      {
        tsMs: fc.nat({ max: 999_999_999_999_999 }),
        key: fc.stringMatching(/^[!#-[\]-~][ !#-[\]-~]{0,20}$/).map((text) => Buffer.from(text)),
        op: fc.constantFrom(...ACCESS_OPS),
        bytes: fc.nat({ max: 10_000_000 }),
        latencyMs: fc.integer({ min: 0, max: 10_000_000 }).map((hundredths) => hundredths / 100),
      },
      { requiredKeys: ["tsMs", "key", "op", "bytes"] },
    );
    fc.assert(
      fc.property(record, (written) => {
        fc.pre(!written.key.toString().startsWith("hex:"));
        const line = formatAccessLine(written).slice(0, -1);
        expect(readInPlace(line)).toEqual(written);
      }),
      { numRuns: 2000 },
    );
  });

  it("declines lines the full parser must read: escapes, non-ASCII keys, other numbers, other shapes", () => {
    const declined = [
      '{"ts":1,"key":"é","op":"read"}',
      '{"ts":1,"key":"a\\"b","op":"read"}',
      '{"ts":1e3,"key":"a","op":"read"}',
      '{"ts":01,"key":"a","op":"read"}',
      '{"ts":1000000000000000,"key":"a","op":"read"}',
      '{"ts":1,"key":"a","op":"read","bytes":0.1234567890123456}',
      '{"ts":1,"key":"a","op":"read","latencyMs":}',
      '{"ts":1,"key":"a","op":"read","latencyMs":1,"bytes":2}',
      '{"ts":1,"key":"a","op":"erase"}',
      '{"ts":1,"key":"a","op":"read"} ',
      '{"ts":1,"key":"a","op":"read"',
      '{ "ts":1,"key":"a","op":"read"}',
    ];
    for (const line of declined)
      expect({ line, record: readInPlace(line) }).toEqual({ line, record: undefined });
    expect(readInPlace('{"ts":1,"key":"hex:00ff","op":"scan","bytes":0,"latencyMs":0.5}')).toEqual({
      tsMs: 1,
      key: Buffer.from([0, 255]),
      op: "scan",
      bytes: 0,
      latencyMs: 0.5,
    });
  });
});
