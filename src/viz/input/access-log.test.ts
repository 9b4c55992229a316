import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type AccessRecord, parseAccessJsonRecord } from "../../access-log/access-record.js";
import { parseKeyText } from "../../keys/key-text.js";
import { tempDirForTests } from "../temp-dir.fixture.js";
import { readAccessLog } from "./access-log.js";

const dir = tempDirForTests("keyspread-access-log-");

const CHUNK = 1 << 20;

/** A line in the common form, `length` bytes long with its line break. */
function lineOfLength(length: number, tsMs: number, lineBreak = "\n"): string {
  const bare = `{"ts":${tsMs},"key":"","op":"read"}${lineBreak}`;
  return `{"ts":${tsMs},"key":"${"k".repeat(length - bare.length)}","op":"read"}${lineBreak}`;
}

/** Records with keys in hex: comparing long keys byte by byte is slow. */
const hexKey = (record: AccessRecord) => ({ ...record, key: record.key.toString("hex") });

async function readBothWays(path: string) {
  const seen: { way: "in place" | "parsed"; record: ReturnType<typeof hexKey> }[] = [];
  await readAccessLog(
    path,
    {},
    {
      line: (line, bytes) =>
        seen.push({ way: "in place", record: hexKey(line.toRecord(bytes, parseKeyText)) }),
      record: (record) => seen.push({ way: "parsed", record: hexKey(record) }),
    },
  );
  return seen;
}

describe("readAccessLog", () => {
  it("gives lines in the common form in place and others parsed, across chunk boundaries", async () => {
    // Ends the first chunk between a line's \r and \n, spans the second with a line longer than a
    // chunk, and ends the log without a line break.
    const head = [
      lineOfLength(CHUNK - 200, 1),
      '{ "ts": 2, "key": "hex:00ff", "op": "write", "node": "n1" }\n',
      "   \n",
    ];
    const lines = [
      ...head,
      lineOfLength(CHUNK + 1 - head.join("").length, 3, "\r\n"),
      lineOfLength(CHUNK + 1000, 4),
      '{"ts":5,"key":"é","op":"scan","bytes":7}',
    ];
    const text = lines.join("");
    expect(text.slice(CHUNK - 1, CHUNK + 1)).toBe("\r\n");
    const path = join(dir(), "boundaries.jsonl");
    await writeFile(path, text);
    const expected = lines
      .map((line) => line.trim())
      .filter((line) => line !== "")
      .map((line) => hexKey(parseAccessJsonRecord(line)));
    expect(await readBothWays(path)).toEqual([
      { way: "in place", record: expected[0] },
      { way: "parsed", record: expected[1] },
      { way: "in place", record: expected[2] },
      { way: "in place", record: expected[3] },
      { way: "parsed", record: expected[4] },
    ]);
  });

  it("names the line of a bad record after a line longer than a chunk", async () => {
    const path = join(dir(), "bad.jsonl");
    await writeFile(path, `${lineOfLength(CHUNK + 10, 1)}\n{"ts":2,"key":"hex:0","op":"read"}\n`);
    await expect(readBothWays(path)).rejects.toThrow(`${path}:3: key "hex:0"`);
  });
});
