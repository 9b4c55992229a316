/** What every command shares: schema files, key text, JSON lines on stdin/stdout, failing cleanly. */
import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import { createInterface } from "node:readline";
import { InvalidArgumentError } from "commander";
import { type KeySchema, parseHex, parseSchema } from "../../keys/index.js";

export type KeyFormat = "text" | "hex";

export async function readSchemaFile(file: string): Promise<KeySchema> {
  const ext = extname(file).toLowerCase();
  const format = ext === ".json" ? "json" : ext === ".yaml" || ext === ".yml" ? "yaml" : undefined;
  try {
    if (!format) throw new Error(`unknown extension "${ext}"; use .json, .yaml or .yml`);
    return parseSchema(await readFile(file, "utf8"), format);
  } catch (error) {
    fail(`schema ${file}: ${(error as Error).message}`);
  }
}

/** Text when the keys are text all through (a text layout with a decimal salt), else hex. */
export function defaultFormat(schema: KeySchema): KeyFormat {
  return schema.spec.layout === "text" && (schema.spec.salt?.width !== undefined || !schema.spec.salt)
    ? "text"
    : "hex";
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Text keys print as their UTF-8 text; a key that is not valid UTF-8 or holds a line break needs hex. */
export function renderKey(key: Buffer, format: KeyFormat): string {
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

export function parseKey(line: string, format: KeyFormat): Buffer {
  return format === "text" ? Buffer.from(line, "utf8") : parseHex(line);
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`not valid JSON: ${(error as Error).message}`);
  }
}

/** Non-empty stdin lines with their 1-based line numbers. */
export async function* stdinLines(): AsyncGenerator<{ line: string; lineNumber: number }> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  let lineNumber = 0;
  try {
    for await (const raw of lines) {
      lineNumber++;
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (line.trim() !== "") yield { line, lineNumber };
    }
  } finally {
    lines.close();
  }
}

/** Writes to stdout, waiting for the pipe to drain when it is full. */
export function write(text: string): Promise<void> {
  if (text === "") return Promise.resolve();
  return new Promise((resolve) => {
    if (process.stdout.write(text)) resolve();
    else process.stdout.once("drain", resolve);
  });
}

/**
 * Prints `keyspread: message` on stderr and sets exit code 1; exits at once unless `exit` is false.
 * With KEYSPREAD_ERRORS=json in the environment the line is one JSON object instead, for scripts
 * and tests: `message`, then `where` (such as the input line), then the error's name and typed
 * fields (a SchemaError's path and problem, a FieldValueError's field and value, …).
 */
export function fail(message: string, exit?: true, error?: unknown, where?: object): never;
export function fail(message: string, exit: false, error?: unknown, where?: object): void;
export function fail(message: string, exit = true, error?: unknown, where: object = {}): void {
  process.stderr.write(
    process.env.KEYSPREAD_ERRORS === "json"
      ? `${JSON.stringify({ message, ...where, ...errorFields(error) }, (_key, value) =>
          typeof value === "bigint" ? value.toString() : value,
        )}\n`
      : `keyspread: ${message}\n`,
  );
  process.exitCode = 1;
  if (exit) process.exit(1);
}

/** An error's name and own fields (a Buffer as hex); nothing for anything but an Error. */
function errorFields(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return {};
  const fields: Record<string, unknown> = { name: error.name };
  for (const [key, value] of Object.entries(error)) {
    if (key !== "message" && key !== "stack" && key !== "cause")
      fields[key] = Buffer.isBuffer(value) ? value.toString("hex") : value;
  }
  return fields;
}

/** Wraps a command's action so any error ends the command with its message, not a stack trace. */
export function guarded<A extends unknown[]>(
  action: (...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  return async (...args) => {
    try {
      await action(...args);
    } catch (error) {
      fail(error instanceof Error ? error.message : String(error), true, error);
    }
  };
}

/** A commander argument parser from any parser: its error becomes commander's usage error. */
export function argumentOf<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => {
    try {
      return parse(text);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };
}

/** A commander argument parser for whole numbers from `min` to `max`. */
export function wholeNumberIn(min: number, max: number): (text: string) => number {
  return (text) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new InvalidArgumentError(`"${text}" is not a whole number from ${min} to ${max}`);
    }
    return value;
  };
}

/** A commander argument parser for whole numbers ≥ 1. */
export function parsePositiveInt(text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new InvalidArgumentError(`"${text}" is not a whole number ≥ 1`);
  return value;
}

/** A commander argument parser for `--growth`: a multiple of today's workload, at least 1. */
export function parseGrowth(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < 1)
    throw new InvalidArgumentError(
      `"${text}" is not a growth: give a multiple of today's workload ≥ 1, e.g. 1.5`,
    );
  return value;
}

/** `16,24,64`: salt bucket counts, each a whole number ≥ 1. */
export const parseBucketList = (list: string): number[] =>
  list.split(",").map((item) => parsePositiveInt(item.trim()));
