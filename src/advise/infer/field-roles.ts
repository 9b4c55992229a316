/**
 * What each key field does in a workload, read from the scenario's field generators: a time or a
 * sequence makes writes move through the key space; an entity field (a template over the entity
 * index) or a picked field (`oneOf`) spreads them. Candidate designs are built from these roles.
 */
import type { CodecSpec, SchemaSpec } from "../../keys/types.js";
import type { FieldGenerator, Scenario } from "../../sim/scenario/scenario.js";

export type KeyFieldRole =
  | { kind: "time"; reverse: boolean }
  | { kind: "sequence" }
  /** Fixed per entity (a template over the entity index); `cardinality` distinct values overall. */
  | { kind: "entity"; cardinality: number }
  /** Chosen per write from `cardinality` values, not tied to the entity. */
  | { kind: "pick"; cardinality: number };

export interface KeyFieldInfo {
  name: string;
  role: KeyFieldRole;
  codec: CodecSpec;
  /** Whether the baseline key holds the field (a workload field outside the key can be promoted into it). */
  inKey: boolean;
}

export interface KeyRoles {
  /** Key fields in order, then workload fields every group sets that the key lacks. */
  fields: KeyFieldInfo[];
  /** The first key field that moves with time (a timestamp or a sequence), if any: it makes writes sequential when it leads. */
  monotonic: KeyFieldInfo | undefined;
  /** Key fields before the monotonic one that identify or spread a writer (entity or picked fields). */
  entityPrefix: KeyFieldInfo[];
}

const TEMPLATE_MOD = /\{(?:hex\d+:)?i%(\d+)/;
const TEMPLATE_DIV = /\{(?:hex\d+:)?i\/(\d+)/;

function templateCardinality(template: string, entities: number): number {
  const mod = TEMPLATE_MOD.exec(template);
  if (mod) return Math.min(entities, Number(mod[1]));
  const div = TEMPLATE_DIV.exec(template);
  if (div) return Math.max(1, Math.ceil(entities / Number(div[1])));
  return template.includes("{") ? entities : 1;
}

function roleOf(generators: { generator: FieldGenerator; entities: number }[]): KeyFieldRole {
  const picked = new Set<string | number>();
  let cardinality = 0;
  for (const { generator, entities } of generators) {
    if (typeof generator === "string") cardinality += templateCardinality(generator, entities);
    else if ("sequence" in generator) return { kind: "sequence" };
    else for (const value of generator.oneOf) picked.add(value);
  }
  return cardinality > 0 || picked.size === 0
    ? { kind: "entity", cardinality: Math.max(1, cardinality) }
    : { kind: "pick", cardinality: picked.size };
}

/** A codec for a workload field promoted into the key: numbers as zero-padded uints, the rest as strings. */
function codecForGenerator(generator: FieldGenerator): CodecSpec {
  if (typeof generator === "object" && "oneOf" in generator) {
    const numbers = generator.oneOf.filter((value): value is number => typeof value === "number");
    if (
      numbers.length === generator.oneOf.length &&
      numbers.every((n) => Number.isSafeInteger(n) && n >= 0)
    ) {
      return { type: "uint", width: String(Math.max(...numbers)).length };
    }
  }
  if (typeof generator === "object" && "sequence" in generator) return { type: "uint", width: 12 };
  return { type: "string" };
}

export function keyRoles(scenario: Scenario, spec: SchemaSpec): KeyRoles {
  const groups = scenario.workload.groups;
  const generatorsOf = (name: string) =>
    groups.flatMap((group) =>
      group.fields[name] === undefined ? [] : [{ generator: group.fields[name]!, entities: group.entities }],
    );
  const fields: KeyFieldInfo[] = [];
  for (const segment of spec.segments) {
    if (!("field" in segment)) continue;
    const generators = generatorsOf(segment.field);
    const role: KeyFieldRole =
      generators.length === 0
        ? { kind: "time", reverse: segment.codec.type === "timestamp" && segment.codec.reverse === true }
        : roleOf(generators);
    fields.push({ name: segment.field, role, codec: segment.codec, inKey: true });
  }
  const inKey = new Set(fields.map((field) => field.name));
  const shared = Object.keys(groups[0]!.fields).filter(
    (name) => !inKey.has(name) && groups.every((group) => group.fields[name] !== undefined),
  );
  for (const name of shared) {
    fields.push({
      name,
      role: roleOf(generatorsOf(name)),
      codec: codecForGenerator(groups[0]!.fields[name]!),
      inKey: false,
    });
  }
  const keyFields = fields.filter((field) => field.inKey);
  // A sequence stored reversed does not move through the key space: its next id lands anywhere.
  const monotonicIndex = keyFields.findIndex(
    (field) =>
      field.role.kind === "time" || (field.role.kind === "sequence" && field.codec.type !== "reversed-uint"),
  );
  const beforeMonotonic = monotonicIndex < 0 ? keyFields : keyFields.slice(0, monotonicIndex);
  return {
    fields,
    monotonic: monotonicIndex < 0 ? undefined : keyFields[monotonicIndex],
    entityPrefix: beforeMonotonic.filter(
      (field) => field.role.kind === "entity" || field.role.kind === "pick",
    ),
  };
}

/** Distinct values a field takes (1 for time and sequence: they are never a spreading dimension). */
export function cardinalityOf(field: KeyFieldInfo): number {
  return field.role.kind === "entity" || field.role.kind === "pick" ? field.role.cardinality : 1;
}

/**
 * Row keys one group's writes fall on under a key of these fields (no time, no counter in it): the
 * product of the distinct values each field takes in that group alone — one entity, one row.
 */
export function rowsOfGroup(
  group: Scenario["workload"]["groups"][number],
  fieldNames: readonly string[],
): number {
  return fieldNames.reduce((product, name) => {
    const generator = group.fields[name];
    if (generator === undefined) return product;
    const role = roleOf([{ generator, entities: group.entities }]);
    return product * (role.kind === "entity" || role.kind === "pick" ? role.cardinality : 1);
  }, 1);
}
