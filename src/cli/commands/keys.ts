/**
 * `keyspread keys …`: encode, decode, plan and inspect keys of a schema file, one line at a time.
 * On the first bad line the command prints what it has so far, names the line and the field on
 * stderr and exits 1: no partial output for that line, nothing after it.
 */
import { type Command, Option } from "commander";
import { formatBytes } from "../../format/bytes.js";
import {
  BIGTABLE_MAX_KEY_BYTES,
  type KeySchema,
  queryFromJson,
  summarizeBucketCounts,
  valuesFromJson,
  valuesToJson,
} from "../../keys/index.js";
import {
  defaultFormat,
  fail,
  type KeyFormat,
  parseJson,
  parseKey,
  readSchemaFile,
  renderKey,
  stdinLines,
  wholeNumberIn,
  write,
} from "../shared/io.js";

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
    .option(
      "--shard <n>",
      "with writeShards: the write shard of each sharded row's key (rows the schema does not shard have one key)",
      wholeNumberIn(0, 255),
    )
    .action(encodeCommand);

  keys
    .command("decode")
    .description("keys on stdin (one per line) → JSON objects with their bucket and field values")
    .addOption(schemaOption())
    .addOption(formatOption())
    .action(decodeCommand);

  keys
    .command("plan")
    .description('the byte ranges a query reads: {"fanout": n, "ranges": [{"start": …, "end": …}]}')
    .addOption(schemaOption())
    .addOption(formatOption())
    .requiredOption("--query <json>", 'e.g. {"eq": {"deviceId": "d1"}, "range": {"field": "ts", "gte": 0}}')
    .action(planCommand);

  keys
    .command("inspect")
    .description("field values on stdin → bucket histogram, skew, chi-square p, key lengths, salt overhead")
    .addOption(schemaOption())
    .option("--json", "print the report as JSON")
    .action(inspectCommand);
}

async function encodeCommand(options: { schema: string; format?: KeyFormat; shard?: number }): Promise<void> {
  const schema = await readSchemaFile(options.schema);
  const format = options.format ?? defaultFormat(schema);
  await eachLine("encode", (line) => {
    const values = valuesFromJson(schema, parseJson(line));
    // The shard names one of a sharded row's keys; a row the schema does not shard has only one.
    const shard = schema.shardsOf(values) > 1 ? options.shard : undefined;
    return `${renderKey(schema.encode(values, shard), format)}\n`;
  });
}

async function decodeCommand(options: { schema: string; format?: KeyFormat }): Promise<void> {
  const schema = await readSchemaFile(options.schema);
  const format = options.format ?? defaultFormat(schema);
  await eachLine("decode", (line) => {
    const { bucket, values, shard } = schema.decode(parseKey(line, format));
    return `${JSON.stringify({ bucket, ...(shard === undefined ? {} : { shard }), ...valuesToJson(values) })}\n`;
  });
}

async function planCommand(options: { schema: string; format?: KeyFormat; query: string }): Promise<void> {
  const schema = await readSchemaFile(options.schema);
  const format = options.format ?? defaultFormat(schema);
  await run("plan", () => {
    const plan = schema.plan(queryFromJson(schema, parseJson(options.query)));
    const ranges = plan.ranges.map((r) => ({
      start: renderKey(r.start, format),
      end: r.end === null ? null : renderKey(r.end, format),
    }));
    process.stdout.write(`${JSON.stringify({ fanout: plan.fanout, ranges })}\n`);
  });
}

async function inspectCommand(options: { schema: string; json?: boolean }): Promise<void> {
  const schema = await readSchemaFile(options.schema);
  const counts = new Array<number>(schema.bucketCount).fill(0);
  // Keys are at most 4096 bytes: a count per length gives exact percentiles in constant memory.
  const lengths = new Array<number>(BIGTABLE_MAX_KEY_BYTES + 1).fill(0);
  const ok = await eachLine("inspect", (line) => {
    const key = schema.encode(valuesFromJson(schema, parseJson(line)));
    counts[schema.decode(key).bucket]! += 1;
    lengths[key.length]! += 1;
    return "";
  });
  if (ok) process.stdout.write(inspectReport(schema, counts, lengths, options.json === true));
}

/**
 * Applies `handle` to each non-empty stdin line, writing its output in batches. Stops at the first
 * line that throws: what came before is flushed, the error names the line, the exit code is 1.
 */
async function eachLine(command: string, handle: (line: string) => string): Promise<boolean> {
  let pending = "";
  for await (const { line, lineNumber } of stdinLines()) {
    try {
      pending += handle(line);
    } catch (error) {
      await write(pending);
      fail(`keys ${command}: line ${lineNumber}: ${(error as Error).message}`, false, error, {
        line: lineNumber,
      });
      return false;
    }
    if (pending.length >= 1 << 16) {
      await write(pending);
      pending = "";
    }
  }
  await write(pending);
  return true;
}

async function run(command: string, body: () => void): Promise<void> {
  try {
    body();
  } catch (error) {
    fail(`keys ${command}: ${(error as Error).message}`, false, error);
  }
}

/** The inspect report: distribution of buckets, key lengths and what the salt costs. */
function inspectReport(schema: KeySchema, counts: number[], lengths: number[], json: boolean): string {
  const distribution = summarizeBucketCounts(counts);
  const keyLength = lengthStats(lengths);
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

/** min, mean, p50, p99 and max of a histogram `rows per key length`. */
function lengthStats(lengths: number[]) {
  const rows = lengths.reduce((sum, n) => sum + n, 0);
  const lengthAt = (rank: number) => {
    let seen = 0;
    for (let length = 0; length < lengths.length; length++) {
      seen += lengths[length]!;
      if (seen > rank) return length;
    }
    return 0;
  };
  const total = lengths.reduce((sum, n, length) => sum + n * length, 0);
  return {
    min: lengthAt(0),
    mean: rows ? total / rows : 0,
    p50: lengthAt(Math.floor(0.5 * rows)),
    p99: lengthAt(Math.floor(0.99 * rows)),
    max: lengthAt(rows - 1),
  };
}
