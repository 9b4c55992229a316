/**
 * `keyspread keys …`: encode, decode, plan and inspect keys of a schema file, one line at a time.
 * On the first bad line the command prints what it has so far, names the line and the field on
 * stderr and exits 1: no partial output for that line, nothing after it.
 */
import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import { createInterface } from "node:readline";
import { type Command, Option } from "commander";
import {
  type KeySchema,
  parseSchema,
  queryFromJson,
  summarizeCounts,
  valuesFromJson,
  valuesToJson,
} from "../keys/index.js";

type KeyFormat = "text" | "hex";

export function registerKeysCommands(program: Command): void {
  const keys = program.command("keys").description("encode, decode, plan and inspect row keys of a schema");
  const schemaOption = () =>
    new Option("--schema <file>", "schema file (.json, or .yaml/.yml)").makeOptionMandatory();
  const formatOption = () =>
    new Option(
      "--format <format>",
      "keys as text (UTF-8) or hex; default: text for text layouts with a decimal salt, else hex",
    ).choices(["text", "hex"]);

  keys
    .command("encode")
    .description("JSON objects of field values on stdin (one per line) → one key per line")
    .addOption(schemaOption())
    .addOption(formatOption())
    .action(async (options: { schema: string; format?: KeyFormat }) => {
      const schema = await loadSchema(options.schema);
      const format = options.format ?? defaultFormat(schema);
      await eachLine(
        "encode",
        (line) => `${renderKey(schema.encode(valuesFromJson(schema, parseJson(line))), format)}\n`,
      );
    });

  keys
    .command("decode")
    .description("keys on stdin (one per line) → JSON objects with their bucket and field values")
    .addOption(schemaOption())
    .addOption(formatOption())
    .action(async (options: { schema: string; format?: KeyFormat }) => {
      const schema = await loadSchema(options.schema);
      const format = options.format ?? defaultFormat(schema);
      await eachLine("decode", (line) => {
        const { bucket, values } = schema.decode(parseKey(line, format));
        return `${JSON.stringify({ bucket, ...valuesToJson(values) })}\n`;
      });
    });

  keys
    .command("plan")
    .description('the byte ranges a query reads: {"fanout": n, "ranges": [{"start": …, "end": …}]}')
    .addOption(schemaOption())
    .addOption(formatOption())
    .requiredOption("--query <json>", 'e.g. {"eq": {"deviceId": "d1"}, "range": {"field": "ts", "gte": 0}}')
    .action(async (options: { schema: string; format?: KeyFormat; query: string }) => {
      const schema = await loadSchema(options.schema);
      const format = options.format ?? defaultFormat(schema);
      await run("plan", () => {
        const plan = schema.plan(queryFromJson(schema, parseJson(options.query)));
        const ranges = plan.ranges.map((r) => ({
          start: renderKey(r.start, format),
          end: r.end === null ? null : renderKey(r.end, format),
        }));
        process.stdout.write(`${JSON.stringify({ fanout: plan.fanout, ranges })}\n`);
      });
    });

  keys
    .command("inspect")
    .description("field values on stdin → bucket histogram, skew, chi-square p, key lengths, salt overhead")
    .addOption(schemaOption())
    .option("--json", "print the report as JSON")
    .action(async (options: { schema: string; json?: boolean }) => {
      const schema = await loadSchema(options.schema);
      const counts = new Array<number>(schema.bucketCount).fill(0);
      const lengths: number[] = [];
      const ok = await eachLine("inspect", (line) => {
        const key = schema.encode(valuesFromJson(schema, parseJson(line)));
        counts[schema.decode(key).bucket]! += 1;
        lengths.push(key.length);
        return "";
      });
      if (ok) process.stdout.write(inspectReport(schema, counts, lengths, options.json === true));
    });
}

async function loadSchema(file: string): Promise<KeySchema> {
  const ext = extname(file).toLowerCase();
  const format = ext === ".json" ? "json" : ext === ".yaml" || ext === ".yml" ? "yaml" : undefined;
  try {
    if (!format) throw new Error(`unknown extension "${ext}"; use .json, .yaml or .yml`);
    return parseSchema(await readFile(file, "utf8"), format);
  } catch (error) {
    fail(`schema ${file}: ${(error as Error).message}`);
  }
}

function defaultFormat(schema: KeySchema): KeyFormat {
  return schema.spec.layout === "text" && (schema.spec.salt?.width !== undefined || !schema.spec.salt)
    ? "text"
    : "hex";
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Text keys print as their UTF-8 text; a key that is not valid UTF-8 or holds a line break needs hex. */
function renderKey(key: Buffer, format: KeyFormat): string {
  if (format === "hex") return key.toString("hex");
  let text: string;
  try {
    text = UTF8.decode(key);
  } catch {
    throw new Error(`key ${key.toString("hex")} is not valid UTF-8 text; use --format hex`);
  }
  if (/[\r\n]/.test(text))
    throw new Error(`key ${JSON.stringify(text)} contains a line break; use --format hex`);
  return text;
}

function parseKey(line: string, format: KeyFormat): Buffer {
  if (format === "text") return Buffer.from(line, "utf8");
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(line))
    throw new Error(`${JSON.stringify(line)} is not hex (an even number of 0-9a-f)`);
  return Buffer.from(line, "hex");
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * Applies `handle` to each non-empty stdin line, writing its output in batches. Stops at the first
 * line that throws: what came before is flushed, the error names the line, the exit code is 1.
 */
async function eachLine(command: string, handle: (line: string) => string): Promise<boolean> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  let pending = "";
  let lineNumber = 0;
  try {
    for await (const raw of lines) {
      lineNumber++;
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (line.trim() === "") continue;
      try {
        pending += handle(line);
      } catch (error) {
        await write(pending);
        fail(`keys ${command}: line ${lineNumber}: ${(error as Error).message}`, false);
        return false;
      }
      if (pending.length >= 1 << 16) {
        await write(pending);
        pending = "";
      }
    }
  } finally {
    lines.close();
  }
  await write(pending);
  return true;
}

async function run(command: string, body: () => void): Promise<void> {
  try {
    body();
  } catch (error) {
    fail(`keys ${command}: ${(error as Error).message}`, false);
  }
}

function write(text: string): Promise<void> {
  if (text === "") return Promise.resolve();
  return new Promise((resolve) => {
    if (process.stdout.write(text)) resolve();
    else process.stdout.once("drain", resolve);
  });
}

function fail(message: string, exit?: true): never;
function fail(message: string, exit: false): void;
function fail(message: string, exit = true): void {
  process.stderr.write(`keyspread: ${message}\n`);
  process.exitCode = 1;
  if (exit) process.exit(1);
}

/** The inspect report: distribution of buckets, key lengths and what the salt costs. */
function inspectReport(schema: KeySchema, counts: number[], lengths: number[], json: boolean): string {
  const distribution = summarizeCounts(counts);
  const sorted = [...lengths].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const keyLength = {
    min: sorted[0] ?? 0,
    mean: sorted.length ? sorted.reduce((s, n) => s + n, 0) / sorted.length : 0,
    p50: at(0.5),
    p99: at(0.99),
    max: sorted.at(-1) ?? 0,
  };
  const saltBytesPerRow = schema.saltPrefixLength;
  const saltBytesPerBillionRows = saltBytesPerRow * 1e9;
  if (json) {
    return `${JSON.stringify({ schema: schema.spec.name, fingerprint: schema.fingerprint, ...distribution, keyLength, saltBytesPerRow, saltBytesPerBillionRows })}\n`;
  }
  const width = String(distribution.max).length;
  const bar = (count: number) =>
    "█".repeat(distribution.max ? Math.round((40 * count) / distribution.max) : 0);
  const buckets = counts.map((count, bucket) => ({ bucket, count }));
  const shown =
    buckets.length <= 32
      ? buckets
      : [
          ...[...buckets].sort((a, b) => b.count - a.count).slice(0, 8),
          ...[...buckets]
            .sort((a, b) => a.count - b.count)
            .slice(0, 8)
            .reverse(),
        ];
  const lines = [
    `schema ${schema.spec.name} (${schema.fingerprint}): ${distribution.samples} rows over ${counts.length} bucket(s)`,
    buckets.length <= 32 ? "bucket histogram:" : "bucket histogram (8 hottest, then 8 coldest):",
    ...shown.map(({ bucket, count }) =>
      `  ${String(bucket).padStart(5)}  ${String(count).padStart(width)}  ${bar(count)}`.trimEnd(),
    ),
    `skew (max/mean): ${distribution.skew.toFixed(3)}   max ${distribution.max}, mean ${distribution.mean.toFixed(1)}, min ${distribution.min}`,
    `chi-square: ${distribution.chiSquare.toFixed(2)} (df ${distribution.degreesOfFreedom}), p = ${distribution.pValue.toPrecision(3)}`,
    `key length (bytes): min ${keyLength.min}, mean ${keyLength.mean.toFixed(1)}, p50 ${keyLength.p50}, p99 ${keyLength.p99}, max ${keyLength.max}`,
    `salt adds ${saltBytesPerRow} byte(s) per row: ${formatBytes(saltBytesPerBillionRows)} per billion rows`,
  ];
  return `${lines.join("\n")}\n`;
}

function formatBytes(bytes: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${Number(value.toPrecision(3))} ${units[unit]}`;
}
