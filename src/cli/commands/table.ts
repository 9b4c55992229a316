/**
 * `keyspread table …`: a salted table from the shell, JSON lines in and out. Rows print as
 * `{"key", "bucket", "values", "cells"}`; a cell is its UTF-8 text, or `{"hex": "…"}` when it is
 * not text. Tables may be shared with other code: puts set only the cells they name, reads skip
 * rows the schema cannot decode (with a warning on stderr) unless `--strict`.
 */
import { type Command, Option } from "commander";
import { rowKeySchemaFor } from "../../bigquery/row-key-schema.js";
import { type KeySchema, queryFromJson, valuesFromJson, valuesToJson } from "../../keys/index.js";
import type { FieldValues, Query } from "../../keys/types.js";
import { physicalKeys } from "../../keys/write-shards.js";
import { openStore, STORE_KINDS, type StoreKind } from "../../store/open/open.js";
import { adoptTable } from "../../table/adopt.js";
import { cellsFromJson, cellsToJson } from "../../table/cells-json.js";
import {
  type PutRow,
  RowKeyError,
  SaltedTable,
  type TableRow,
  type TableScan,
} from "../../table/salted-table.js";
import { bucketSplits } from "../../table/splits.js";
import {
  argumentOf,
  defaultFormat,
  fail,
  guarded,
  type KeyFormat,
  parseJson,
  parsePositiveInt,
  readSchemaFile,
  renderKey,
  stdinLines,
  write,
} from "../shared/io.js";
import { warnOnStderr } from "../shared/warnings.js";

interface TableOptions {
  schema: string;
  store: StoreKind;
  table?: string;
  dir?: string;
  format?: KeyFormat;
  family?: string;
  appProfile?: string;
}

interface CreateOptions extends TableOptions {
  maxAge?: number;
  maxVersions?: number;
  adopt?: boolean;
  force?: boolean;
  sample: number;
  maxUndecodable: number;
  rowKeySchema?: boolean;
}

/** Rows written together (one store request). */
const BATCH = 5_000;

export function registerTableCommands(program: Command): void {
  const table = program
    .command("table")
    .description("create, write and read a salted table (embedded store by default, or Cloud Bigtable)");
  registerCreateCommand(table);
  registerWriteCommands(table);
  registerReadCommands(table);
}

/** The options every command on a stored table takes. */
function withTableOptions(command: Command): Command {
  return command
    .requiredOption("--schema <file>", "key schema file (.json, .yaml)")
    .addOption(new Option("--store <kind>", "where the table lives").choices(STORE_KINDS).default("embedded"))
    .option("--table <name>", "table name (default: the schema's name)")
    .option("--dir <directory>", "embedded store: parent directory of the tables", "./.keyspread")
    .option(
      "--family <name>",
      "bigtable: the column family keyspread reads and writes (default $KEYSPREAD_BIGTABLE_FAMILY, else m)",
    )
    .option(
      "--app-profile <id>",
      "bigtable: the app profile this command's requests use (default $KEYSPREAD_BIGTABLE_APP_PROFILE)",
    )
    .addOption(new Option("--format <format>", "how keys print").choices(["text", "hex"]));
}

function registerCreateCommand(table: Command): void {
  withTableOptions(table.command("create"))
    .description(
      "create the table and record its schema (bigtable: pre-split at the salt's bucket boundaries), or --adopt an existing one; prints the table and the schema fingerprint",
    )
    .option("--max-age <seconds>", "bigtable: garbage-collect cells older than this", parsePositiveInt)
    .option("--max-versions <n>", "bigtable: versions of each cell to keep (default 1)", parsePositiveInt)
    .option(
      "--adopt",
      "use an existing table other code wrote: check that a sample of its keys decodes, then record the schema",
    )
    .option("--sample <rows>", "--adopt: rows to sample, spread over the table", parsePositiveInt, 1000)
    .option(
      "--max-undecodable <share>",
      "--adopt: refuse when more than this share of sampled rows does not decode (0 to 1)",
      argumentOf(parseShare),
      0.01,
    )
    .option("--force", "--adopt: record the schema whatever the sample shows")
    .option(
      "--row-key-schema",
      "bigtable: also set Bigtable's row key schema from the key schema, so GoogleSQL for Bigtable reads the key's parts as columns (refused, with the reasons, where the key does not fit)",
    )
    .action(guarded(createCommand));
}

function registerWriteCommands(table: Command): void {
  withTableOptions(table.command("put"))
    .description(
      'write rows from stdin, one JSON object per line: {"key": {field: value…}, "cells": {name: text | {"hex": "…"}}}; sets the named cells and keeps the row\'s others',
    )
    .option("--replace", "each row's cells become exactly the given ones (the others are deleted)")
    .action(guarded(withOpenTable(putCommand)));

  withTableOptions(table.command("delete"))
    .description(
      'delete rows named on stdin, one JSON object per line: {"key": {field: value…}} deletes the row, {"key": …, "cells": [name…]} only those cells',
    )
    .action(guarded(withOpenTable(deleteCommand)));
}

function registerReadCommands(table: Command): void {
  withTableOptions(table.command("get"))
    .description("read one row by its field values")
    .requiredOption("--key <json>", "the row's field values as a JSON object")
    .action(guarded(withOpenTable(getCommand)));

  withTableOptions(table.command("scan"))
    .description("rows matching a query, in logical key order (salt ignored)")
    .option("--query <json>", 'e.g. {"eq": {"device": "d1"}, "range": {"field": "ts", "gte": 1}}', "{}")
    .option("--limit <n>", "at most this many rows", parsePositiveInt)
    .option("--deadline <ms>", "fail the read after this many milliseconds", parsePositiveInt)
    .option("--strict", "fail on a row in the ranges the schema cannot decode (default: skip it and warn)")
    .option(
      "--report",
      "print the plan and cost (rows scanned, read amplification, undecodable rows) on stderr",
    )
    .action(guarded(withOpenTable(scanCommand)));

  withTableOptions(table.command("latest"))
    .description(
      "the newest n rows of one entity (the field after the bound ones must be a reverse timestamp)",
    )
    .requiredOption("--key <json>", "the entity's field values as a JSON object")
    .option("-n, --count <n>", "how many rows", parsePositiveInt, 100)
    .option("--deadline <ms>", "fail the read after this many milliseconds", parsePositiveInt)
    .option("--strict", "fail on a row in the range the schema cannot decode (default: skip it and warn)")
    .action(guarded(withOpenTable(latestCommand)));

  table
    .command("explain")
    .description("the key ranges a query reads and its fan-out, without reading")
    .requiredOption("--schema <file>", "key schema file (.json, .yaml)")
    .requiredOption("--query <json>", 'e.g. {"eq": {"device": "d1"}, "limit": 100}')
    .addOption(new Option("--format <format>", "how keys print").choices(["text", "hex"]))
    .action(guarded(explainCommand));
}

interface ReadCommandOptions {
  deadline?: number;
  strict?: boolean;
}

/** An action on the opened table; the store is closed whatever the action does. */
function withOpenTable<O>(
  action: (opened: OpenedTable, options: O) => Promise<void>,
): (options: TableOptions & O) => Promise<void> {
  return async (options) => {
    const opened = await open(options);
    try {
      await action(opened, options);
    } finally {
      await opened.salted.store.close();
    }
  };
}

async function putCommand({ salted }: OpenedTable, options: { replace?: boolean }): Promise<void> {
  const outcome = await batchedLines(
    (input) => putRowFromJson(salted.schema, input),
    (batch) => salted.putMany(batch, { replace: options.replace === true }),
  );
  await write(`${JSON.stringify({ written: outcome.done, failed: outcome.failed })}\n`);
  reportFailures("put", outcome);
}

async function deleteCommand({ salted }: OpenedTable): Promise<void> {
  const outcome = await batchedLines(
    (input) => deleteFromJson(salted.schema, input),
    (batch) => salted.deleteMany(batch),
  );
  await write(`${JSON.stringify({ deleted: outcome.done, failed: outcome.failed })}\n`);
  reportFailures("delete", outcome);
}

/** After the report on stdout: exit 1 naming why, when a line failed or the input stopped. */
function reportFailures(
  command: string,
  { failed, stopped }: { failed: LineFailure[]; stopped?: string },
): void {
  if (stopped !== undefined) fail(`table ${command}: stopped: ${stopped}`, false);
  if (failed.length > 0)
    fail(`table ${command}: ${failed.length} rows failed; see "failed" for each line and why`, false);
}

async function getCommand({ salted, format }: OpenedTable, options: { key: string }): Promise<void> {
  const row = await salted.get(
    cliInput("--key", () => valuesFromJson(salted.schema, parseJson(options.key))),
  );
  if (row === undefined) fail("table get: no such row", false);
  else await write(`${JSON.stringify(rowToJson(row, format))}\n`);
}

async function scanCommand(
  { salted, format }: OpenedTable,
  options: ReadCommandOptions & { query: string; limit?: number; report?: boolean },
): Promise<void> {
  const query = parseQuery(salted.schema, options.query, options.limit);
  await printScan(salted.scan(query, readOptions(options)), format, options.report);
}

async function latestCommand(
  { salted, format }: OpenedTable,
  options: ReadCommandOptions & { key: string; count: number },
): Promise<void> {
  const eq = cliInput("--key", () => valuesFromJson(salted.schema, parseJson(options.key)));
  const rows = await salted.latest({ eq }, options.count, readOptions(options));
  await write(rows.map((row) => `${JSON.stringify(rowToJson(row, format))}\n`).join(""));
}

async function explainCommand(options: { schema: string; query: string; format?: KeyFormat }): Promise<void> {
  const schema = await readSchemaFile(options.schema);
  const format = options.format ?? defaultFormat(schema);
  const plan = schema.plan(parseQuery(schema, options.query, undefined));
  const ranges = plan.ranges.map((range) => ({
    bucket: range.bucket,
    start: renderKey(range.start, format),
    end: range.end === null ? null : renderKey(range.end, format),
  }));
  await write(`${JSON.stringify({ fanout: plan.fanout, limit: plan.limit ?? null, ranges })}\n`);
}

async function createCommand(options: CreateOptions): Promise<void> {
  const schema = await readSchemaFile(options.schema);
  const name = options.table ?? schema.spec.name;
  const bigtableOnly = { maxAge: "--max-age", maxVersions: "--max-versions" } as const;
  for (const [key, flag] of Object.entries(bigtableOnly)) {
    if (options[key as keyof typeof bigtableOnly] !== undefined && options.store !== "bigtable") {
      refuseFlag("table create", flag, "--store bigtable", " (a Bigtable garbage-collection rule)");
    }
    if (options.adopt && options[key as keyof typeof bigtableOnly] !== undefined) {
      fail(`table create: ${flag} is set when a table is created; an adopted table keeps its rules`);
    }
  }
  if (options.force && !options.adopt) refuseFlag("table create", "--force", "--adopt");
  const rowKeySchema = options.rowKeySchema ? await rowKeySchemaOption(schema, options) : undefined;
  const splits = options.adopt ? [] : bucketSplits(schema);
  const store = await openStore(options.store, {
    table: name,
    directory: options.dir,
    bigtable: bigtableOptions(options),
    // Adopting needs the table to be there; creating an embedded table creates its directory.
    mustExist: options.adopt === true,
    create: !options.adopt,
    maxAgeSeconds: options.maxAge,
    maxVersions: options.maxVersions,
    splits,
    ...(rowKeySchema ? { rowKeySchema } : {}),
  }).catch((error: unknown) => fail(`table ${name}: ${(error as Error).message}`, true, error));
  try {
    const summary = {
      table: store.name,
      fingerprint: schema.fingerprint,
      buckets: schema.bucketCount,
    };
    if (options.adopt) {
      const report = await adoptTable(store, schema, {
        sampleRows: options.sample,
        maxUndecodableShare: options.maxUndecodable,
        force: options.force === true,
      });
      const { table: _table, fingerprint: _fingerprint, ...adopted } = report;
      await write(`${JSON.stringify({ ...summary, adopted })}\n`);
    } else {
      await SaltedTable.open(store, schema, { create: true });
      await write(
        `${JSON.stringify({ ...summary, ...(options.store === "bigtable" ? { splits: splits.length } : {}) })}\n`,
      );
    }
  } finally {
    await store.close();
  }
}

/** The row key schema `--row-key-schema` sets, or a failure saying why the key does not fit. */
async function rowKeySchemaOption(schema: KeySchema, options: CreateOptions) {
  if (options.store !== "bigtable") refuseFlag("table create", "--row-key-schema", "--store bigtable");
  if (options.adopt) fail("table create: --row-key-schema is set when a table is created, not with --adopt");
  const { DEFAULT_BIGTABLE_FAMILY } = await import("../../store/bigtable/bigtable.js");
  const family = options.family ?? (process.env.KEYSPREAD_BIGTABLE_FAMILY || DEFAULT_BIGTABLE_FAMILY);
  const fit = rowKeySchemaFor(schema, family);
  if (!fit.fits)
    fail(
      `table create: --row-key-schema: the key does not fit Bigtable's row key schema: ${fit.reasons.map((reason) => reason.message).join("; ")}`,
      true,
      undefined,
      { reasons: fit.reasons },
    );
  return fit.struct;
}

interface OpenedTable {
  salted: SaltedTable;
  format: KeyFormat;
}

async function open(options: TableOptions): Promise<OpenedTable> {
  const schema = await readSchemaFile(options.schema);
  const name = options.table ?? schema.spec.name;
  try {
    const store = await openStore(options.store, {
      table: name,
      directory: options.dir,
      mustExist: true,
      bigtable: bigtableOptions(options),
    });
    const salted = await SaltedTable.open(store, schema, { onWarning: warnOnStderr }).catch(async (error) => {
      await store.close();
      throw error;
    });
    return { salted, format: options.format ?? defaultFormat(schema) };
  } catch (error) {
    fail(`table ${name}: ${(error as Error).message}`, true, error);
  }
}

/** A flag given without the option it applies to; KEYSPREAD_ERRORS=json names both. */
function refuseFlag(command: string, flag: string, appliesTo: string, why = ""): never {
  fail(`${command}: ${flag} applies to ${appliesTo}${why}`, true, undefined, { flag, appliesTo });
}

/** `--family` and `--app-profile` route Bigtable requests; other stores have neither. */
function bigtableOptions(options: TableOptions): { family?: string; appProfileId?: string } {
  const flags = { family: "--family", appProfile: "--app-profile" } as const;
  for (const [key, flag] of Object.entries(flags)) {
    if (options[key as keyof typeof flags] !== undefined && options.store !== "bigtable") {
      refuseFlag("table", flag, "--store bigtable");
    }
  }
  return {
    ...(options.family === undefined ? {} : { family: options.family }),
    ...(options.appProfile === undefined ? {} : { appProfileId: options.appProfile }),
  };
}

/** A line that was not written: its number, its key as given (null when the line has none), and why. */
interface LineFailure {
  line: number;
  key: unknown;
  reason: string;
}

/**
 * Reads JSON lines from stdin in batches. A line that does not parse or whose key cannot be
 * encoded fails alone, as do rows the table or the store refuse; every other line is written.
 * A store error that leaves a batch's outcome unknown stops the input, naming its first line.
 */
async function batchedLines<T extends { values: FieldValues }>(
  parse: (input: unknown) => T,
  writeBatch: (batch: T[]) => Promise<{ failed: { index: number; values: FieldValues; reason: string }[] }>,
): Promise<{ done: number; failed: LineFailure[]; stopped?: string }> {
  let batch: T[] = [];
  let batchLines: number[] = [];
  let done = 0;
  const failed: LineFailure[] = [];
  const flush = async () => {
    for (;;) {
      const result = await writeBatch(batch).catch((error: unknown) => {
        if (error instanceof RowKeyError) return error;
        throw error;
      });
      if (result instanceof RowKeyError) {
        // A key the table refuses (a reserved one) fails its line; the batch is written without it.
        const row = batch[result.index]!;
        const line = batchLines[result.index]!;
        batch.splice(result.index, 1);
        batchLines.splice(result.index, 1);
        failed.push({ line, key: valuesToJson(row.values), reason: result.reason });
        continue;
      }
      for (const failure of result.failed) {
        failed.push({
          line: batchLines[failure.index]!,
          key: valuesToJson(failure.values),
          reason: failure.reason,
        });
      }
      done += batch.length - result.failed.length;
      batch = [];
      batchLines = [];
      return;
    }
  };
  const report = () => ({ done, failed: failed.sort((a, b) => a.line - b.line) });
  try {
    for await (const { line, lineNumber } of stdinLines()) {
      let input: unknown;
      try {
        input = parseJson(line);
        batch.push(parse(input));
        batchLines.push(lineNumber);
      } catch (error) {
        failed.push({ line: lineNumber, key: keyOf(input), reason: (error as Error).message });
      }
      if (batch.length >= BATCH) await flush();
    }
    if (batch.length > 0) await flush();
  } catch (error) {
    const first = batchLines[0];
    const unknown = first === undefined ? "" : `; lines from ${first} on were not confirmed written`;
    return { ...report(), stopped: `${(error as Error).message}${unknown}` };
  }
  return report();
}

/** The `key` member of a line's object, as given. */
function keyOf(input: unknown): unknown {
  return typeof input === "object" && input !== null && "key" in input ? input.key : null;
}

function putRowFromJson(schema: KeySchema, input: unknown): PutRow {
  const { key, cells } = lineObject(
    input,
    ["key", "cells"],
    '{"key": {field: value…}, "cells": {name: text…}}',
  );
  const values = valuesFromJson(schema, key);
  // Encoded here so a bad key fails its own line (the table refuses a whole batch for one).
  physicalKeys(schema, values);
  const parsed = cellsFromJson(cells ?? {});
  if (parsed.size === 0) throw new Error("cells: a row needs at least one cell");
  return { values, cells: parsed };
}

function deleteFromJson(schema: KeySchema, input: unknown): { values: FieldValues; cells?: string[] } {
  const { key, cells } = lineObject(input, ["key", "cells"], '{"key": {field: value…}, "cells"?: [name…]}');
  const values = valuesFromJson(schema, key);
  physicalKeys(schema, values);
  if (cells === undefined) return { values };
  if (!Array.isArray(cells) || cells.length === 0 || !cells.every((c) => typeof c === "string" && c !== "")) {
    throw new Error("cells must be a non-empty list of cell names (leave it out to delete the row)");
  }
  return { values, cells };
}

/** A JSON line's object with a required `key` and only the allowed members. */
function lineObject(
  input: unknown,
  allowed: string[],
  shape: string,
): Record<string, unknown> & { key: unknown } {
  if (typeof input !== "object" || input === null || Array.isArray(input) || !("key" in input)) {
    throw new Error(`expected ${shape}`);
  }
  const extra = Object.keys(input).find((member) => !allowed.includes(member));
  if (extra !== undefined) throw new Error(`unknown member "${extra}"; allowed: ${allowed.join(", ")}`);
  return input as Record<string, unknown> & { key: unknown };
}

async function printScan(scan: TableScan, format: KeyFormat, report: boolean | undefined): Promise<void> {
  let pending = "";
  for await (const row of scan) {
    pending += `${JSON.stringify(rowToJson(row, format))}\n`;
    if (pending.length >= 1 << 16) {
      await write(pending);
      pending = "";
    }
  }
  await write(pending);
  if (report) {
    const { plan, ...cost } = scan.report;
    process.stderr.write(`${JSON.stringify({ fanout: plan.fanout, ...cost })}\n`);
  }
}

function rowToJson(row: TableRow, format: KeyFormat) {
  return {
    key: renderKey(row.key, format),
    bucket: row.bucket,
    values: valuesToJson(row.values),
    cells: cellsToJson(row.cells),
  };
}

function parseQuery(schema: KeySchema, text: string, limit: number | undefined): Query {
  const query = cliInput("--query", () => queryFromJson(schema, parseJson(text)));
  return limit === undefined ? query : { ...query, limit };
}

function readOptions(options: ReadCommandOptions) {
  return {
    ...(options.deadline === undefined ? {} : { deadlineMs: options.deadline }),
    ...(options.strict ? { strict: true } : {}),
  };
}

function parseShare(text: string): number {
  const share = Number(text);
  if (text.trim() === "" || !(share >= 0 && share <= 1))
    throw new Error(`"${text}" is not a share from 0 to 1`);
  return share;
}

/** Runs a parse of a command-line argument, failing with the option's name. */
function cliInput<T>(option: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    fail(`${option}: ${(error as Error).message}`);
  }
}
