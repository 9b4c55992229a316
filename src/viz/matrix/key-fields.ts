/**
 * A heatmap row's keys named through the key schema, as Key Visualizer and TiDB's keyvisual name
 * rows by what the key means: the salt bucket, then each field as far as the key spells it. Range
 * boundaries fall anywhere (a simulator's split points end in arbitrary bytes), so a key is read
 * field by field and a field cut short keeps its readable start, marked `…`. A key the schema
 * cannot read yields fewer fields, never an error. Pure.
 */
import type { CompiledSchema } from "../../keys/schema.js";
import type { KeySchema } from "../../keys/types.js";

/** The schema parts the naming reads: a compiled schema's fields with their codecs and separators. */
export type NamingSchema = Pick<
  CompiledSchema,
  "fields" | "saltPrefixLength" | "bucketCount" | "bucketOfKey" | "spec"
>;

/** The schema as one rows can be named through, when it is a compiled schema (all of keyspread's are). */
export function namingSchema(schema: Pick<KeySchema, "spec"> | undefined): NamingSchema | undefined {
  const fields = (schema as Partial<NamingSchema> | undefined)?.fields;
  return fields?.every((field) => "coder" in field && "before" in field)
    ? (schema as NamingSchema)
    : undefined;
}

export interface KeyPart {
  /** `bucket`, or the field's name. */
  field: string;
  text: string;
  /** False when the key ends inside the value (or in bytes the codec cannot read): `text` is its start. */
  whole: boolean;
}

const MS_PER_UNIT = { s: 1000, ms: 1, us: 0.001 } as const;
/**
 * Bytes an identifier is made of: letters, digits and `-_.:/@`. A split point's arbitrary tail
 * often holds printable bytes too (`acme-08350yk(d`); stopping at the first other byte drops most.
 */
const isIdentifierByte = (byte: number) =>
  (byte >= 0x30 && byte <= 0x39) ||
  (byte >= 0x41 && byte <= 0x5a) ||
  (byte >= 0x61 && byte <= 0x7a) ||
  byte === 0x2d ||
  byte === 0x5f ||
  byte === 0x2e ||
  byte === 0x3a ||
  byte === 0x2f ||
  byte === 0x40;

/** Text fields and times read as they are; numbers and enum values are named by their field (`shard 6`). */
function valueText(field: string, value: unknown, codec: NamingSchema["fields"][number]["codec"]): string {
  if (codec.type === "timestamp" && (typeof value === "number" || typeof value === "bigint")) {
    const date = new Date(Number(value) * MS_PER_UNIT[codec.unit]);
    if (!Number.isNaN(date.getTime())) return date.toISOString();
  }
  return codec.type === "string" || codec.type === "reverse-domain" ? String(value) : `${field} ${value}`;
}

/** The readable start of a text field's bytes: up to the first byte an identifier is not made of. */
function readableStart(key: Buffer, from: number): string {
  let end = from;
  while (end < key.length && isIdentifierByte(key[end]!)) end++;
  return key.toString("latin1", from, end);
}

const partText = (part: KeyPart) => (part.whole ? part.text : `${part.text}…`);

/** The bucket and fields `key` spells, outermost first, as far as it spells them. */
export function keyParts(schema: NamingSchema, key: Buffer): KeyPart[] {
  const parts: KeyPart[] = [];
  if (schema.bucketCount > 1) {
    if (key.length < schema.saltPrefixLength) return parts;
    let bucket: number;
    try {
      bucket = schema.bucketOfKey(key);
    } catch {
      return parts;
    }
    const digits = String(schema.bucketCount - 1).length;
    parts.push({ field: "bucket", text: `b${String(bucket).padStart(digits, "0")}`, whole: true });
  }
  const separator = schema.spec.layout === "text" ? (schema.spec.separator ?? "#").charCodeAt(0) : undefined;
  let at = schema.saltPrefixLength;
  for (const [index, field] of schema.fields.entries()) {
    const before = field.before;
    if (key.length < at + before.length || !key.subarray(at, at + before.length).equals(before)) break;
    at += before.length;
    if (at >= key.length) break;
    const textual = field.codec.type === "string" || field.codec.type === "reverse-domain";
    try {
      const { value, end } = field.coder.read(key, at);
      // A text-layout value running to the key's end may be cut short, unless it is the last field.
      const whole = end < key.length || index === schema.fields.length - 1 || separator === undefined;
      const text = valueText(field.name, value, field.codec);
      // A cut text value keeps only its identifier-like start, as a value that fails to read does.
      parts.push({ field: field.name, text: whole || !textual ? text : readableStart(key, at), whole });
      if (!whole) break;
      at = end;
    } catch {
      const start = textual ? readableStart(key, at) : "";
      if (start !== "") parts.push({ field: field.name, text: start, whole: false });
      break;
    }
  }
  return parts;
}

/** A key's labels at `levels` prefix levels (bucket, then fields), `""` where the key spells none. */
export function fieldLabels(schema: NamingSchema, key: Buffer, levels: number): string[] {
  const parts = keyParts(schema, key);
  return Array.from({ length: levels }, (_, level) => (parts[level] ? partText(parts[level]) : ""));
}

/** A row named by its keys: the parts its start and end share, then where the first difference runs. */
export interface RowName {
  shared: KeyPart[];
  /** The first part that differs, at the start and at the end (absent at an end the start does not reach). */
  from?: KeyPart;
  to?: KeyPart;
}

/** Names the range [start, end) (end null: to the end of the table). */
export function rowName(schema: NamingSchema, start: Buffer, end: Buffer | null): RowName {
  const first = keyParts(schema, start);
  if (end === null) return { shared: first };
  const last = keyParts(schema, end);
  let same = 0;
  while (
    same < first.length &&
    same < last.length &&
    first[same]!.whole &&
    last[same]!.whole &&
    first[same]!.text === last[same]!.text
  )
    same++;
  return {
    shared: first.slice(0, same),
    ...(first[same] ? { from: first[same] } : {}),
    ...(last[same] ? { to: last[same] } : {}),
  };
}

/** `b07 · acme-003751…–acme-003790…`: the shared parts, then the differing one as a range (`…` for a side without it). */
export function rowNameText(name: RowName): string {
  const parts = name.shared.map(partText);
  if (name.from || name.to) {
    parts.push(`${name.from ? partText(name.from) : "…"}–${name.to ? partText(name.to) : "…"}`);
  }
  return parts.join(" · ");
}
