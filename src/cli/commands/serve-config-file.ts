/**
 * `keyspread serve --config FILE`: the service's options from a JSON file, by the names and in the
 * units of the library's options (`intervalMs`, `maxBodyBytes`, `{"drain": {"deadlineMs": …}}`):
 * the options the flags set (`SERVICE_FLAGS`), each checked as its flag checks it. `quotas` is the
 * `--quota` text. A flag given on the command line wins over the file.
 */
import { readFile } from "node:fs/promises";
import type { IngestServiceOptions } from "../../serve/serve-config.js";
import { SERVICE_FLAGS, type ServiceFlag } from "./serve-flags.js";

/** An entry of the file that is not allowed: its `key` (dotted for a nested one), the `value` given and what is `allowed`. */
export class ServeConfigFileError extends Error {
  override readonly name = "ServeConfigFileError";
  constructor(
    readonly file: string,
    readonly key: string,
    readonly value: unknown,
    readonly allowed: string,
  ) {
    super(`--config ${file}: ${key} ${JSON.stringify(value)}: expected ${allowed}`);
  }
}

export async function readServeConfigFile(file: string): Promise<Partial<IngestServiceOptions>> {
  const text = await readFile(file, "utf8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ServeConfigFileError(file, "(file)", text.slice(0, 40), `JSON: ${(error as Error).message}`);
  }
  return serveOptionsOfConfig(json, file);
}

/** The options a parsed config file sets; `file` names it in errors. */
export function serveOptionsOfConfig(json: unknown, file: string): Partial<IngestServiceOptions> {
  const flags = new Map(
    Object.values(SERVICE_FLAGS)
      .flat()
      .map((flag) => [flag.sets as string, flag]),
  );
  const allowedKeys = `one of ${[...flags.keys()].join(", ")}`;
  if (!isObject(json)) throw new ServeConfigFileError(file, "(file)", json, "a JSON object of options");
  const options: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(json)) {
    const nested = [...flags.keys()].some((key) => key.startsWith(`${field}.`));
    if (!nested) {
      const flag = flags.get(field);
      if (flag === undefined) throw new ServeConfigFileError(file, field, value, allowedKeys);
      options[field] = optionValue(flag, value, file);
      continue;
    }
    if (!isObject(value)) throw new ServeConfigFileError(file, field, value, "an object");
    const inner: Record<string, unknown> = {};
    for (const [name, innerValue] of Object.entries(value)) {
      const key = `${field}.${name}`;
      const flag = flags.get(key);
      if (flag === undefined) throw new ServeConfigFileError(file, key, innerValue, allowedKeys);
      inner[name] = optionValue(flag, innerValue, file);
    }
    options[field] = inner;
  }
  return options as Partial<IngestServiceOptions>;
}

/** The file's value for `flag`'s option, checked as the flag checks its text; a duration (`…Ms`) is in milliseconds. */
function optionValue(flag: ServiceFlag, value: unknown, file: string): unknown {
  const takesValue = flag.flags.includes("<");
  if (!takesValue) {
    if (typeof value !== "boolean") throw new ServeConfigFileError(file, flag.sets, value, "true or false");
    return value;
  }
  if (flag.parse) {
    const unit = flag.sets.endsWith("Ms") ? "ms" : "";
    if (typeof value !== "number") {
      throw new ServeConfigFileError(file, flag.sets, value, unit ? "a number of milliseconds" : "a number");
    }
    try {
      return flag.parse(`${value}${unit}`);
    } catch (error) {
      throw new ServeConfigFileError(file, flag.sets, value, (error as Error).message);
    }
  }
  if (typeof value !== "string") throw new ServeConfigFileError(file, flag.sets, value, "a string");
  if (!flag.convert) return value;
  try {
    return flag.convert(value);
  } catch (error) {
    throw new ServeConfigFileError(file, flag.sets, value, (error as Error).message);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `over` laid over `under`: its options win, an option group (`drain`, `replicas`, …) field by field. */
export function overlayOptions(
  under: Partial<IngestServiceOptions>,
  over: Partial<IngestServiceOptions>,
): Partial<IngestServiceOptions> {
  const merged: Record<string, unknown> = { ...under };
  for (const [field, value] of Object.entries(over)) {
    const below = merged[field];
    merged[field] = isObject(below) && isObject(value) && !isQuotas(field) ? { ...below, ...value } : value;
  }
  return merged as Partial<IngestServiceOptions>;
}

/** Quotas are given whole (the `--quota` text), never merged tenant by tenant. */
function isQuotas(field: string): boolean {
  return field === "quotas";
}
