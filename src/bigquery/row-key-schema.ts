/**
 * Bigtable's own row key schema (`Table.row_key_schema`, Google's "Manage row key schemas",
 * Preview): a STRUCT whose fields GoogleSQL for Bigtable reads from `_key` as columns. A text key
 * fits the `DelimitedBytes` encoding when every part's bytes sort above the delimiter (sorted
 * mode: "encoded field values must not contain any bytes <= delimiter[0]"); keyspread's digits,
 * salt and escaped strings are then STRING fields (Bigtable's INT64 encodings are binary, never
 * decimal text). Where a key does not fit, the reasons say which part and why.
 */
import type { NormalizedSpec } from "../keys/spec.js";
import type { KeySchema } from "../keys/types.js";

/** The admin API's Type.Struct, as proto JSON (camelCase; the delimiter as bytes). */
export interface RowKeyStruct {
  fields: { fieldName: string; type: { stringType: { encoding: { utf8Bytes: Record<string, never> } } } }[];
  encoding: { delimitedBytes: { delimiter: Buffer } };
}

export type RowKeySchemaFit =
  | {
      fits: true;
      struct: RowKeyStruct;
      /** What SQL reads in a field that is not the value keyspread decodes (escaped text, complemented digits). */
      notes: string[];
    }
  | { fits: false; reasons: RowKeyMisfit[] };

/** Why a key does not fit a row key schema: what does not fit, the field where there is one, and the sentence. */
export interface RowKeyMisfit {
  problem:
    | "binary-layout"
    | "write-shards"
    | "raw-byte-salt"
    | "digits-below-delimiter"
    | "literal-below-delimiter"
    | "raw-string"
    | "name-collision";
  field?: string;
  message: string;
}

const UTF8 = { stringType: { encoding: { utf8Bytes: {} } } } as const;

export function rowKeySchemaFor(schema: KeySchema, family: string): RowKeySchemaFit {
  const spec = schema.spec as NormalizedSpec;
  if (spec.layout === "binary") {
    return {
      fits: false,
      reasons: [
        {
          problem: "binary-layout",
          message:
            "binary layout: keyspread joins fixed-width fields without a delimiter and writes int64 sign-flipped, while OrderedCodeBytes puts 00 01 between fields and Int64's encodings are two's-complement big-endian or ordered-code varints",
        },
      ],
    };
  }
  const { separator } = spec;
  const delimiter = separator.charCodeAt(0);
  const reasons: RowKeyMisfit[] = [];
  const notes: string[] = [];
  const fields: RowKeyStruct["fields"] = [];
  if (spec.writeShards)
    reasons.push({
      problem: "write-shards",
      message:
        "writeShards: sharded rows end in one more part than the others, so no one STRUCT describes every key",
    });
  const digitsFit = delimiter < 0x30;
  const digitsReason = (what: string, field?: string): RowKeyMisfit => ({
    problem: "digits-below-delimiter",
    ...(field === undefined ? {} : { field }),
    message: `${what} is decimal digits, which sort below the delimiter "${separator}" (sorted mode needs every byte above it; a delimiter below "0" such as "#" or "!" fits)`,
  });
  if (spec.salt) {
    if (spec.salt.width === undefined)
      reasons.push({
        problem: "raw-byte-salt",
        message: `salt hash "${spec.salt.hash}" writes one raw byte, not a delimited part`,
      });
    else if (!digitsFit) reasons.push(digitsReason("the salt"));
    else {
      fields.push({ fieldName: "bucket", type: UTF8 });
      notes.push("bucket: the salt's digits, as text");
    }
  }
  spec.segments.forEach((segment, i) => {
    if ("literal" in segment) {
      const below = [...Buffer.from(segment.literal)].some((byte) => byte <= delimiter);
      if (below)
        reasons.push({
          problem: "literal-below-delimiter",
          message: `literal "${segment.literal}" holds bytes at or below the delimiter "${separator}"`,
        });
      else fields.push({ fieldName: `literal_${i}`, type: UTF8 });
      return;
    }
    const { field, codec } = segment;
    switch (codec.type) {
      case "string":
      case "reverse-domain":
        if (codec.type === "string" && codec.raw) {
          reasons.push({
            problem: "raw-string",
            field,
            message: `field "${field}" is a raw string: it may hold bytes at or below the delimiter "${separator}" (a space, punctuation${delimiter > 0x30 ? ", digits, capitals" : ""}), which DelimitedBytes cannot read`,
          });
          return;
        }
        if (!digitsFit) {
          reasons.push(digitsReason(`field "${field}"'s escapes (escape byte and two hex digits)`, field));
          return;
        }
        notes.push(
          `${field}: the escaped text; a value holding "${separator}" or any byte up to "${String.fromCharCode(delimiter + 1)}" reads as its escape${codec.type === "reverse-domain" ? ", and the labels stay reversed" : ""}`,
        );
        break;
      default:
        if (!digitsFit) {
          reasons.push(digitsReason(`field "${field}" (${codec.type})`, field));
          return;
        }
        if (!digitsFit) {
          reasons.push(digitsReason(`field "${field}"'s escapes (escape byte and two hex digits)`, field));
          return;
        }
        notes.push(
          `${field}: the key's ${codec.type === "timestamp" && codec.reverse ? "complemented (reverse) " : ""}decimal digits as text${codec.type === "enum" ? " (the value's index)" : ""}${codec.type === "int64" ? " (value + 2^63)" : ""}`,
        );
    }
    fields.push({ fieldName: field, type: UTF8 });
  });
  for (const name of fields.map((f) => f.fieldName)) {
    if (name === family || name === "_key" || name === "_timestamp") {
      reasons.push({
        problem: "name-collision",
        field: name,
        message: `field "${name}" collides with the column family or a reserved column; Bigtable requires distinct names`,
      });
    }
  }
  if (reasons.length > 0) return { fits: false, reasons };
  return {
    fits: true,
    struct: { fields, encoding: { delimitedBytes: { delimiter: Buffer.from(separator) } } },
    notes,
  };
}

/** The struct as the admin API's REST JSON (bytes in base64). */
export function rowKeySchemaJson(struct: RowKeyStruct): unknown {
  return {
    ...struct,
    encoding: { delimitedBytes: { delimiter: struct.encoding.delimitedBytes.delimiter.toString("base64") } },
  };
}

/** The struct as `gcloud … --row-key-schema-definition-file` reads it (without --row-key-schema-pre-encoded-bytes: the delimiter as text). */
export function rowKeySchemaGcloud(struct: RowKeyStruct): unknown {
  return {
    ...struct,
    encoding: { delimitedBytes: { delimiter: struct.encoding.delimitedBytes.delimiter.toString("latin1") } },
  };
}
