/**
 * A table function reading one entity by its exact row-key prefixes. A filter on a decoded column
 * reaches Bigtable as a full-table scan; a filter on the row key itself is a range Bigtable can
 * seek to. The prefixes are the salt, then the entity's fields as the key spells them; the salt
 * is computed in SQL where its hash can be (md5-hex4: BigQuery's MD5), and otherwise every bucket's
 * prefix is read (xxHash32 and the Java-hash presets have no SQL function): N short ranges
 * instead of the whole table.
 */
import { uintWidth } from "../keys/codec.js";
import { parseSaltInput } from "../keys/salt.js";
import type { NormalizedSpec } from "../keys/spec.js";
import type { CodecSpec, KeySchema } from "../keys/types.js";
import { decodeQuery, type RowSource } from "./decode-query.js";
import type { SqlDialect } from "./dialect.js";
import type { DecodingPlan } from "./plan.js";

/** Above this many buckets, reading every bucket's prefix is no longer a few rows. */
export const MAX_ENUMERATED_BUCKETS = 256;

/** Why an artifact was not written: what stood in the way (one problem per reason) and the sentence printed. */
export interface Refusal {
  problems: string[];
  message: string;
}

export interface EntityReader {
  /** The entity's fields, which the function takes as parameters `entity_<field>`, in key order. */
  fields: string[];
  /** "computed" (the salt is computed in SQL) or "every-bucket" (N prefixes are read). */
  salt: "computed" | "every-bucket" | "none";
  /** The CREATE statement. */
  sql: string;
}

/** The reader, or why it cannot be written (a sentence naming the codec or hash). */
export function entityReader(
  schema: KeySchema,
  plan: DecodingPlan,
  d: SqlDialect,
  source: RowSource,
  name: string,
): EntityReader | { refused: Refusal } {
  const spec = schema.spec as NormalizedSpec;
  if (plan.layout !== "text" || spec.layout !== "text") {
    return {
      refused: {
        problems: ["binary-layout"],
        message:
          "binary keys: the row-key ranges would need byte arithmetic on BYTES; filter the view on rowkey instead",
      },
    };
  }
  const fields = spec.salt ? [...schema.saltFields] : [schema.fields[0]!.name];
  const { separator } = spec;
  // The entity's fields in key order (the salt fields lead the key), each as its key text in SQL.
  const entityFields = schema.fields.filter((f) => fields.includes(f.name));
  const encoded = new Map<string, string>();
  for (const field of entityFields) {
    const sql = encodeParameter(field.name, field.codec, separator, d);
    if (typeof sql !== "string") return sql;
    encoded.set(field.name, sql);
  }
  const encodedField = (name: string): string => {
    const sql = encoded.get(name);
    // Segments up to the last entity field, and salt.input, read only salt (entity) fields.
    if (sql === undefined) throw new Error(`field "${name}" is not one of the entity's fields`);
    return sql;
  };
  // The key's text from after the salt through the last entity field: its segments and separators.
  const lastIndex = spec.segments.findIndex((s) => "field" in s && s.field === fields.at(-1));
  const body: string[] = [];
  spec.segments.slice(0, lastIndex + 1).forEach((segment, i) => {
    if (i > 0) body.push(d.str(separator));
    body.push("literal" in segment ? d.str(segment.literal) : encodedField(segment.field));
  });
  const complete = lastIndex === spec.segments.length - 1;
  const range = (salt: string | undefined) => {
    const prefix = salt === undefined ? body : [salt, d.str(separator), ...body];
    if (complete) return `${source.rowKey} = ${d.concat(prefix)}`;
    // Every row of the entity starts with prefix + separator and sorts below prefix + (separator + 1).
    const low = d.concat([...prefix, d.str(separator)]);
    const high = d.concat([...prefix, d.str(String.fromCharCode(separator.charCodeAt(0) + 1))]);
    return `${source.rowKey} >= ${low} AND ${source.rowKey} < ${high}`;
  };

  let where: string;
  let saltKind: EntityReader["salt"];
  // A text plan's salt is decimal digits: its width is the plan's.
  const salt = spec.salt && plan.salt && { ...spec.salt, width: plan.salt.width };
  if (!salt) {
    where = range(undefined);
    saltKind = "none";
  } else if (salt.hash === "md5-hex4") {
    const input =
      salt.input === undefined
        ? d.concat(body)
        : d.concat(
            parseSaltInput(salt.input).map((part) =>
              "field" in part ? encodedField(part.field) : d.str(part.literal),
            ),
          );
    where = range(d.padDigits(d.md5Hex4Bucket(input, salt.buckets), salt.width));
    saltKind = "computed";
  } else {
    if (salt.buckets > MAX_ENUMERATED_BUCKETS) {
      return {
        refused: {
          problems: ["too-many-buckets"],
          message: `salt hash "${salt.hash}" has no SQL function, and reading all ${salt.buckets} buckets' prefixes is more than ${MAX_ENUMERATED_BUCKETS} ranges`,
        },
      };
    }
    where = Array.from(
      { length: salt.buckets },
      (_, bucket) => `(${range(d.str(String(bucket).padStart(salt.width, "0")))})`,
    ).join("\n    OR ");
    saltKind = "every-bucket";
  }
  const query = decodeQuery(plan, d, source, where);
  const parameters = entityFields.map(({ name, codec }) => {
    return {
      name: `entity_${name}`,
      type: codec.type === "uint" || codec.type === "timestamp" ? "INT64" : "STRING",
    };
  });
  const sql =
    d.name === "bigquery"
      ? `CREATE OR REPLACE TABLE FUNCTION ${name}(${parameters.map((p) => `${p.name} ${p.type}`).join(", ")}) AS\n${query}`
      : `CREATE OR REPLACE MACRO ${name}(${parameters.map((p) => p.name).join(", ")}) AS TABLE\n${query}`;
  return { fields, salt: saltKind, sql };
}

/** The SQL spelling a parameter's value as the key writes the field, or why it cannot. */
function encodeParameter(
  field: string,
  codec: CodecSpec,
  separator: string,
  d: SqlDialect,
): string | { refused: Refusal } {
  const parameter = `entity_${field}`;
  const sep = separator.charCodeAt(0);
  switch (codec.type) {
    case "string": {
      if (codec.raw) return parameter;
      const escapeByte = sep + 1;
      if (escapeByte >= 0x30) {
        // The escapes' own hex digits would be escaped again by a later REPLACE.
        return {
          refused: {
            problems: ["unspellable-escape"],
            message: `field "${field}" is an escaped string under separator "${separator}", whose escapes cover the hex digits themselves; SQL cannot spell it with REPLACE`,
          },
        };
      }
      const hex = (byte: number) => byte.toString(16).toUpperCase().padStart(2, "0");
      // The escape byte first, so the escapes written after it are not escaped again.
      const order = [escapeByte, ...Array.from({ length: escapeByte }, (_, byte) => byte)];
      return order.reduce(
        (sql, byte) =>
          `REPLACE(${sql}, ${d.char(byte)}, ${d.str(String.fromCharCode(escapeByte) + hex(byte))})`,
        parameter,
      );
    }
    case "uint":
      return d.padDigits(parameter, uintWidth(codec));
    case "timestamp": {
      const digits = { s: 10, ms: 13, us: 16 }[codec.unit];
      const padded = d.padDigits(parameter, digits);
      return codec.reverse ? d.translate(padded, "0123456789", "9876543210") : padded;
    }
    case "enum": {
      const width = String(codec.values.length - 1).length;
      const cases = codec.values.map(
        (value, i) => `WHEN ${d.str(value)} THEN ${d.str(String(i).padStart(width, "0"))}`,
      );
      return `CASE ${parameter} ${cases.join(" ")} END`;
    }
    default:
      return {
        refused: {
          problems: ["unsupported-codec"],
          message: `field "${field}" is ${codec.type}: the entity reader binds strings, uints, enums and timestamps`,
        },
      };
  }
}
