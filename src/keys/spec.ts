/**
 * Validates a SchemaSpec (from TypeScript, JSON or YAML) and fills in its defaults, so the
 * compiled schema and its fingerprint see one canonical form.
 */
import * as v from "valibot";
import { uintBytes, uintWidth } from "./codec.js";
import { BIGTABLE_MAX_KEY_BYTES, SchemaError } from "./errors.js";
import { parseSaltInput, SALT_HASHES } from "./salt.js";
import type { CodecSpec, SaltSpec, SchemaSpec, SegmentSpec, WriteShardsSpec } from "./types.js";
import { allowedKeys, isUnknownKey, unknownKeyMessage } from "./unknown-key.js";

const positiveInt = (max: number) => v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(max));

const CodecSchema = v.variant("type", [
  v.strictObject({ type: v.literal("string"), raw: v.optional(v.boolean()) }),
  v.strictObject({
    type: v.literal("uint"),
    width: v.optional(positiveInt(20)),
    bytes: v.optional(v.picklist([1, 2, 4, 8])),
  }),
  v.strictObject({
    type: v.literal("reversed-uint"),
    width: v.optional(positiveInt(20)),
    bytes: v.optional(v.picklist([1, 2, 4, 8])),
  }),
  v.strictObject({ type: v.literal("int64") }),
  v.strictObject({
    type: v.literal("timestamp"),
    unit: v.picklist(["s", "ms", "us"]),
    reverse: v.optional(v.boolean()),
  }),
  v.strictObject({ type: v.literal("reverse-domain") }),
  v.strictObject({
    type: v.literal("enum"),
    values: v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.minLength(1), v.maxLength(65536)),
  }),
]);

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const LiteralSchema = v.strictObject({ literal: v.pipe(v.string(), v.minLength(1)) });
const FieldSchema = v.strictObject({
  field: v.pipe(
    v.string(),
    v.regex(FIELD_NAME, "must be an identifier: letters, digits and _, not starting with a digit"),
  ),
  codec: CodecSchema,
});

const SaltSchema = v.strictObject({
  buckets: positiveInt(65536),
  fields: v.optional(v.array(v.string())),
  hash: v.optional(v.picklist(["xxh32", "md5-hex4", "phoenix", "phoenix-legacy", "hbasewd"])),
  width: v.optional(positiveInt(10)),
  input: v.optional(v.pipe(v.string(), v.minLength(1))),
});

const WriteShardsSchema = v.strictObject({
  count: v.pipe(v.number(), v.integer(), v.minValue(2), v.maxValue(256)),
  entities: v.optional(
    v.pipe(
      v.array(v.record(v.string(), v.union([v.string(), v.number()]))),
      v.minLength(1, "lists at least one entity; leave entities out to shard every row"),
    ),
  ),
});

const SpecSchema = v.strictObject({
  version: v.literal(1),
  name: v.pipe(v.string(), v.minLength(1)),
  layout: v.picklist(["text", "binary"]),
  separator: v.optional(v.string()),
  segments: v.pipe(v.array(v.unknown()), v.minLength(1)),
  salt: v.optional(SaltSchema),
  writeShards: v.optional(WriteShardsSchema),
});

/** A spec with every default filled in (the compiled schema's `spec`): a text layout has its separator. */
export type NormalizedSpec = Omit<SchemaSpec, "layout" | "separator" | "salt"> & {
  salt?: Required<Pick<SaltSpec, "buckets" | "fields" | "hash">> & SaltSpec;
} & ({ layout: "text"; separator: string } | { layout: "binary"; separator?: undefined });

const DEFAULT_SEPARATOR = "#";

export function normalizeSpec(input: unknown): NormalizedSpec {
  const spec = parseWith(SpecSchema, input, "");
  const segments = spec.segments.map((segment, i) =>
    normalizeSegment(segment, `segments[${i}]`, spec.layout),
  );
  const fields = segments.filter((s): s is Extract<SegmentSpec, { field: string }> => "field" in s);
  if (fields.length === 0)
    throw new SchemaError("segments", "needs at least one field segment", { problem: "no-field" });

  const seen = new Set<string>();
  fields.forEach((field) => {
    const path = `segments[${segments.indexOf(field)}].field`;
    if (field.field === "bucket")
      throw new SchemaError(path, `"bucket" is reserved (decoded keys report it)`, {
        problem: "reserved-field",
        value: "bucket",
      });
    if (seen.has(field.field))
      throw new SchemaError(path, `duplicate field name "${field.field}"`, {
        problem: "duplicate-field",
        value: field.field,
      });
    seen.add(field.field);
  });

  let separator: string | undefined;
  if (spec.layout === "text") {
    const textSeparator = spec.separator ?? DEFAULT_SEPARATOR;
    checkSeparator(textSeparator);
    separator = textSeparator;
    segments.forEach((segment, i) => {
      if ("literal" in segment && segment.literal.includes(textSeparator)) {
        throw new SchemaError(`segments[${i}].literal`, `contains the separator "${separator}"`, {
          problem: "separator-in-literal",
          value: segment.literal,
        });
      }
    });
  } else if (spec.separator !== undefined) {
    throw new SchemaError("separator", "only the text layout has a separator; remove it for layout: binary", {
      problem: "separator",
    });
  }
  segments.forEach((segment, i) => {
    if ("literal" in segment && Buffer.byteLength(segment.literal) > BIGTABLE_MAX_KEY_BYTES) {
      throw new SchemaError(
        `segments[${i}].literal`,
        `longer than the ${BIGTABLE_MAX_KEY_BYTES}-byte key limit`,
        { problem: "too-long", value: segment.literal },
      );
    }
  });

  const normalized: NormalizedSpec =
    separator === undefined
      ? { version: 1, name: spec.name, layout: "binary", segments }
      : { version: 1, name: spec.name, layout: "text", segments, separator };
  if (spec.salt) {
    const last: unknown = spec.segments.at(-1);
    const endsInLiteral = typeof last === "object" && last !== null && "literal" in last;
    normalized.salt = normalizeSalt(spec.salt, fields, spec.layout, endsInLiteral);
  }
  if (spec.writeShards) normalized.writeShards = normalizeWriteShards(spec.writeShards, normalized, fields);
  return normalized;
}

/**
 * Entities name known fields, leading in key order (values are checked when the schema compiles
 * them). The suffix must stay readable after the last segment, and the salt must not need it.
 */
function normalizeWriteShards(
  shards: v.InferOutput<typeof WriteShardsSchema>,
  spec: NormalizedSpec,
  fields: readonly Extract<SegmentSpec, { field: string }>[],
): WriteShardsSpec {
  const names = fields.map((f) => f.field);
  const last = spec.segments.at(-1);
  if (
    spec.layout === "binary" &&
    last !== undefined &&
    "codec" in last &&
    last.codec.type === "string" &&
    last.codec.raw
  ) {
    throw new SchemaError(
      "writeShards",
      `the last segment, raw string "${last.field}", runs to the end of a binary key, so a shard byte after it would read as part of the string; make it an escaped string (drop raw), or end the key with another segment`,
      { problem: "write-shards" },
    );
  }
  const salt = spec.salt;
  if (salt && SALT_HASHES[salt.hash].defaultFields === "all" && salt.fields.length === names.length) {
    throw new SchemaError(
      "writeShards",
      `hash "${salt.hash}" hashes the whole key after the salt, so those tools would salt each shard differently; salt fewer fields (salt.fields) or use hash xxh32`,
      { problem: "write-shards" },
    );
  }
  shards.entities?.forEach((entity, i) => {
    const bound = Object.keys(entity);
    if (bound.length === 0)
      throw new SchemaError(`writeShards.entities[${i}]`, "binds no field", { problem: "write-shards" });
    for (const name of bound) {
      if (!names.includes(name)) {
        throw new SchemaError(
          `writeShards.entities[${i}].${name}`,
          `unknown field; fields: ${names.join(", ")}`,
          { problem: "unknown-field", value: name, allowed: names },
        );
      }
    }
    const missing = names.slice(0, bound.length).find((name) => !(name in entity));
    if (missing !== undefined) {
      throw new SchemaError(
        `writeShards.entities[${i}]`,
        `binds ${bound.join(", ")} but not "${missing}", which comes before; an entity binds leading fields in key order (${names.join(", ")})`,
        { problem: "write-shards", value: missing },
      );
    }
  });
  return shards.entities
    ? { count: shards.count, entities: shards.entities.map((entity) => ({ ...entity })) }
    : { count: shards.count };
}

function normalizeSegment(input: unknown, path: string, layout: SchemaSpec["layout"]): SegmentSpec {
  if (typeof input === "object" && input !== null && "literal" in input) {
    return parseWith(LiteralSchema, input, path);
  }
  const { field, codec } = parseWith(FieldSchema, input, path);
  return { field, codec: normalizeCodec(codec as CodecSpec, `${path}.codec`, layout) };
}

/** Fills defaults; a uint (reversed or not) keeps only what its layout uses (`width` in text, `bytes` in binary). */
function normalizeCodec(codec: CodecSpec, path: string, layout: SchemaSpec["layout"]): CodecSpec {
  switch (codec.type) {
    case "string":
      return { type: "string", raw: codec.raw ?? false };
    case "uint":
      return layout === "text"
        ? { type: "uint", width: uintWidth(codec) }
        : { type: "uint", bytes: uintBytes(codec) };
    case "reversed-uint":
      return layout === "text"
        ? { type: "reversed-uint", width: uintWidth(codec) }
        : { type: "reversed-uint", bytes: uintBytes(codec) };
    case "timestamp":
      return { type: "timestamp", unit: codec.unit, reverse: codec.reverse ?? false };
    case "enum": {
      const duplicate = codec.values.find((value, i) => codec.values.indexOf(value) !== i);
      if (duplicate !== undefined)
        throw new SchemaError(`${path}.values`, `duplicate value "${duplicate}"`, {
          problem: "duplicate-value",
          value: duplicate,
        });
      return { type: "enum", values: [...codec.values] };
    }
    default:
      return { type: codec.type };
  }
}

function checkSeparator(separator: string): void {
  const code = separator.charCodeAt(0);
  if (separator.length !== 1 || code < 0x21 || code > 0x7d || /[0-9A-Za-z]/.test(separator)) {
    throw new SchemaError(
      "separator",
      `${JSON.stringify(separator)} is not allowed; use one printable ASCII punctuation character from "!" to "}" (e.g. "#", "_", "|")`,
      { problem: "separator", value: separator },
    );
  }
}

function normalizeSalt(
  salt: v.InferOutput<typeof SaltSchema>,
  fields: readonly Extract<SegmentSpec, { field: string }>[],
  layout: SchemaSpec["layout"],
  endsInLiteral: boolean,
): NonNullable<NormalizedSpec["salt"]> {
  const hash = salt.hash ?? "xxh32";
  const info = SALT_HASHES[hash];
  if (salt.buckets > info.maxBuckets) {
    throw new SchemaError(
      "salt.buckets",
      `${salt.buckets} is too many for hash "${hash}"; allowed: 1..${info.maxBuckets}`,
      { problem: "out-of-range" },
    );
  }
  const names = fields.map((f) => f.field);
  const saltFields = saltFieldsOf(salt, fields, info);
  if (
    salt.input === undefined &&
    info.defaultFields === "all" &&
    saltFields.length === names.length &&
    endsInLiteral
  ) {
    // These tools hash every byte after the salt; our hash stops at the last field.
    throw new SchemaError(
      "segments",
      `hash "${hash}" hashes the whole key after the salt, so it cannot end in a literal; move the literal before a field or drop it`,
      { problem: "hash-ends-in-literal", value: hash },
    );
  }

  const normalized: NonNullable<NormalizedSpec["salt"]> = {
    buckets: salt.buckets,
    fields: [...saltFields],
    hash,
  };
  if (salt.input !== undefined) normalized.input = salt.input;
  if (layout === "text" && !info.oneRawByte) {
    const minWidth = String(salt.buckets - 1).length;
    const width = salt.width ?? minWidth;
    if (width < minWidth) {
      throw new SchemaError(
        "salt.width",
        `${width} digits cannot hold bucket ${salt.buckets - 1}; allowed: ${minWidth}..10`,
        { problem: "out-of-range" },
      );
    }
    normalized.width = width;
  } else if (salt.width !== undefined) {
    throw new SchemaError(
      "salt.width",
      `only decimal salts have a width; "${hash}" in ${layout} layout writes raw bytes`,
      { problem: "invalid" },
    );
  }
  return normalized;
}

/** The fields that feed the salt: given, read by `salt.input`, or the hash's default; they must lead the key. */
function saltFieldsOf(
  salt: v.InferOutput<typeof SaltSchema>,
  fields: readonly Extract<SegmentSpec, { field: string }>[],
  info: (typeof SALT_HASHES)[keyof typeof SALT_HASHES],
): string[] {
  const names = fields.map((f) => f.field);
  let saltFields = salt.fields;
  if (salt.input !== undefined) {
    const read = inputFields(salt.input, names);
    if (saltFields !== undefined && [...saltFields].sort().join() !== [...read].sort().join()) {
      throw new SchemaError(
        "salt.fields",
        `must be the fields salt.input reads ([${read.join(", ")}]), or left out`,
        { problem: "salt-fields" },
      );
    }
    saltFields = read;
  }
  if (saltFields === undefined) {
    const firstTimestamp = fields.findIndex((f) => f.codec.type === "timestamp");
    saltFields = info.defaultFields === "all" || firstTimestamp < 0 ? names : names.slice(0, firstTimestamp);
    if (saltFields.length === 0) {
      throw new SchemaError(
        "salt.fields",
        "the first field is a timestamp; list the fields that feed the salt",
        { problem: "salt-fields" },
      );
    }
  }
  saltFields.forEach((name, i) => {
    if (!names.includes(name)) {
      throw new SchemaError(`salt.fields[${i}]`, `unknown field "${name}"; fields: ${names.join(", ")}`, {
        problem: "unknown-field",
        value: name,
        allowed: names,
      });
    }
    if (names[i] !== name) {
      throw new SchemaError(
        "salt.fields",
        `must be the leading fields in key order (the hash covers the key from its start through the last salt field): expected [${names.slice(0, saltFields.length).join(", ")}], got [${saltFields.join(", ")}]`,
        { problem: "salt-fields" },
      );
    }
  });
  if (saltFields.length === 0)
    throw new SchemaError("salt.fields", "needs at least one field", { problem: "salt-fields" });
  return saltFields;
}

/**
 * The fields a `salt.input` template reads, in key order. They must lead the key, as salt fields
 * do, so a query binding them knows the bucket.
 */
function inputFields(template: string, names: readonly string[]): string[] {
  const parts = parseSaltInput(template);
  const read = new Set<string>();
  for (const part of parts) {
    if (!("field" in part)) continue;
    if (!names.includes(part.field)) {
      throw new SchemaError("salt.input", `unknown field "${part.field}"; fields: ${names.join(", ")}`, {
        problem: "unknown-field",
        value: part.field,
        allowed: names,
      });
    }
    read.add(part.field);
  }
  const inKeyOrder = names.filter((name) => read.has(name));
  if (inKeyOrder.some((name, i) => names[i] !== name)) {
    throw new SchemaError(
      "salt.input",
      `reads ${inKeyOrder.join(", ")}, but the fields the salt reads must lead the key (so a query binding them knows its bucket): expected [${names.slice(0, inKeyOrder.length).join(", ")}]`,
      { problem: "salt-fields" },
    );
  }
  return inKeyOrder;
}

/** Parses with valibot; an unknown key, else the first issue, becomes a SchemaError naming its path and what is allowed. */
function parseWith<T extends v.GenericSchema>(schema: T, input: unknown, basePath: string): v.InferOutput<T> {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  // An unknown key explains the other issues (`bucket` for `buckets` also reads as `buckets` missing).
  const unknownKey = result.issues.find(isUnknownKey);
  const issue = unknownKey ?? result.issues[0];
  const keys = (issue.path ?? []).map((item) => item.key as string | number);
  if (unknownKey) {
    const allowed = allowedKeys(schema, unknownKey);
    throw new SchemaError(formatPath(basePath, keys), unknownKeyMessage(allowed), {
      problem: "unknown-key",
      allowed,
    });
  }
  let message = issue.message;
  if (issue.received === "undefined") {
    message =
      issue.type === "strict_object" || !issue.expected ? "required" : `required; allowed: ${issue.expected}`;
  }
  throw new SchemaError(formatPath(basePath, keys), message, { problem: "invalid" });
}

function formatPath(basePath: string, keys: readonly (string | number)[]): string {
  let path = basePath;
  for (const key of keys) path += typeof key === "number" ? `[${key}]` : path ? `.${key}` : key;
  return path;
}
