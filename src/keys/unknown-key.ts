/**
 * Valibot reports a key a strict object does not allow as "expected never", naming neither the key
 * nor what is allowed; these name both, for schema and scenario files alike.
 */
import * as v from "valibot";

type Issue = v.BaseIssue<unknown>;

/** An issue that is a key its strict object does not allow. */
export function isUnknownKey(issue: Issue): boolean {
  return issue.type === "strict_object" && issue.expected === "never";
}

/** The keys allowed where an unknown-key issue found one (undefined if the walk cannot tell). */
export function allowedKeys(schema: v.GenericSchema, issue: Issue): string[] | undefined {
  const path = issue.path ?? [];
  let node: SchemaNode | undefined = schema as unknown as SchemaNode;
  for (const item of path.slice(0, -1)) node = node && childOf(node, item.input, item.key);
  const entries = node && objectOf(node, path.at(-1)?.input)?.entries;
  return entries && Object.keys(entries);
}

/** The message of an unknown-key issue (its path names the key): what is allowed there. */
export function unknownKeyMessage(allowed: readonly string[] | undefined): string {
  return allowed ? `unknown key; allowed: ${allowed.join(", ")}` : "unknown key";
}

/** The parts of a valibot schema the walk reads (its runtime shape; the types do not expose a walk). */
interface SchemaNode {
  type: string;
  kind?: string;
  entries?: Record<string, SchemaNode>;
  wrapped?: SchemaNode;
  options?: SchemaNode[];
  key?: string;
  item?: SchemaNode;
  pipe?: SchemaNode[];
}

function childOf(node: SchemaNode, input: unknown, key: unknown): SchemaNode | undefined {
  const object = objectOf(node, input);
  if (object?.type === "array") return object.item;
  return typeof key === "string" ? object?.entries?.[key] : undefined;
}

/** The object (or array) schema that checked `input`: through optional wrappers, pipes and the variant or union member it matched. */
function objectOf(node: SchemaNode, input: unknown): SchemaNode | undefined {
  if (node.wrapped) return objectOf(node.wrapped, input);
  // A pipe whose later step is a strict object (a loose first check, then the strict shape).
  const stricter = node.pipe?.filter((step) => step.kind === "schema" && step.entries).at(-1);
  if (stricter && stricter !== node) return objectOf(stricter, input);
  if (node.options) {
    const member = node.options.find((option) => matches(option, input, node.key));
    return member && objectOf(member, input);
  }
  return node.entries || node.type === "array" ? node : undefined;
}

/** A variant member whose discriminator accepts the input's, or a union member with a key the input has. */
function matches(option: SchemaNode, input: unknown, discriminator: string | undefined): boolean {
  if (typeof input !== "object" || input === null) return false;
  const record = input as Record<string, unknown>;
  const entries = objectOf(option, input)?.entries;
  if (!entries) return false;
  if (discriminator === undefined) return Object.keys(record).some((key) => key in entries);
  const tag = entries[discriminator];
  return tag !== undefined && v.is(tag as unknown as v.GenericSchema, record[discriminator]);
}
