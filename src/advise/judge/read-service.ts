/**
 * How a design serves each declared read. What a read asks for comes from the current key, whose
 * reads work today: where a time (or a counter) follows the writer, a `latest` or `range` read is
 * one writer's rows; where nothing orders a writer's rows (the time or a counter leads, or a row is
 * its own writer), it is a window of the whole table. A `get` is one row by its whole key.
 *
 * Each read is then served as key ranges the simulator replays, as key ranges the simulator cannot
 * place yet (a window of the whole table), or not as key ranges at all. Fan-outs come from the design's own planner.
 */
import { compileSchema } from "../../keys/index.js";
import { type ReadPattern, type Scenario, type ScenarioDesign, sampleRows } from "../../sim/index.js";
import { type KeyFieldInfo, keyRoles } from "../infer/field-roles.js";
import { timeShape } from "../infer/time-shapes.js";

export type ReadService = {
  name: string;
  kind: ReadPattern["kind"];
  perS: number;
  /** Ranges one read touches under the design (its fan-out). */
  fanout?: number;
} & (
  | { status: "simulated" }
  /** `reason`: why the read is not simulated or cannot be served, in the key's terms. */
  | { status: "not-simulated" | "cannot-serve"; reason: string }
);

/** A read whose group the scenario does not write, or of which the sample holds no row. */
export class ReadGroupError extends Error {
  override readonly name = "ReadGroupError";
  constructor(
    readonly group: string,
    readonly groups: readonly string[],
    problem: string,
  ) {
    super(`group "${group}" ${problem}; groups: ${groups.join(", ")}`);
  }
}

const groupNames = (scenario: Scenario) => scenario.workload.groups.map((each) => each.name);

/** `writer`: one writer's rows; `table`: a window of the whole table. */
export type ReadScope = "writer" | "table";

const listed = (names: readonly string[]) =>
  names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;

/** A time, a counter, or a picked value that is a date or hour (a time bucket): it orders the rows. */
function ordersRows(scenario: Scenario, field: KeyFieldInfo): boolean {
  if (field.codec.type === "reversed-uint") return false;
  if (field.role.kind === "time" || field.role.kind === "sequence") return true;
  if (field.role.kind !== "pick") return false;
  const generator = scenario.workload.groups[0]!.fields[field.name];
  const values = typeof generator === "object" && "oneOf" in generator ? generator.oneOf.map(String) : [];
  return values.length > 0 && timeShape(values) !== undefined;
}

function keyFieldsOf(scenario: Scenario, design: ScenarioDesign): KeyFieldInfo[] {
  return keyRoles(scenario, design.schema).fields.filter((field) => field.inKey);
}

/** Key fields the group fills from a template: the fields that identify one of its writers. */
function writerFields(scenario: Scenario, keyFields: readonly KeyFieldInfo[], group: string): string[] {
  const found = scenario.workload.groups.find((each) => each.name === group);
  if (!found) throw new ReadGroupError(group, groupNames(scenario), "is not in the scenario");
  const fields = found.fields;
  return keyFields.filter((field) => typeof fields[field.name] === "string").map((field) => field.name);
}

/** What the current key's `latest` and `range` reads of `group` read: one writer's rows when a time or counter follows the writer. */
export function readScope(scenario: Scenario, baseline: ScenarioDesign, group: string): ReadScope {
  const keyFields = keyFieldsOf(scenario, baseline);
  const writers = writerFields(scenario, keyFields, group);
  if (writers.length === 0) return "table";
  const afterWriter = keyFields.slice(keyFields.findIndex((field) => field.name === writers[0]) + 1);
  return afterWriter.some((field) => field.role.kind === "time" || field.role.kind === "sequence")
    ? "writer"
    : "table";
}

export function readServices(
  scenario: Scenario,
  design: ScenarioDesign,
  baseline: ScenarioDesign,
): ReadService[] {
  const reads = scenario.workload.reads;
  if (reads.length === 0) return [];
  const schema = compileSchema(design.schema);
  const rows = sampleRows({ ...scenario, designs: [design] }, design.name, {
    count: scenario.workload.groups.length,
    overS: 1,
  });
  const keyFields = keyFieldsOf(scenario, design);
  const first = keyFields[0];
  const leading = keyFields.find((field) => field.role.kind !== "pick");
  return reads.map((read): ReadService => {
    const base = { name: read.name, kind: read.kind, perS: read.perS };
    const row = rows.find((each) => each.group === read.group);
    if (!row) throw new ReadGroupError(read.group, groupNames(scenario), "has no row in the sample");
    const unreadable = "unreadable" in row.entityQueries;
    const writers = writerFields(scenario, keyFields, read.group);
    // A get names the whole key, so the simulator places it on the tablet holding the row whatever leads the key.
    if (read.kind === "get")
      return { ...base, status: "simulated", fanout: schema.plan({ eq: row.values }).fanout };
    if (readScope(scenario, baseline, read.group) === "table") {
      if (!keyFields.some((field) => ordersRows(scenario, field)))
        return {
          ...base,
          status: "cannot-serve",
          reason:
            "no time or counter in the key orders the rows, so the newest rows of the table are no key range",
        };
      if (first && writers.includes(first.name))
        return {
          ...base,
          status: "cannot-serve",
          reason: `reads a window of the whole table, but ${first.name} comes first in this key: the window is spread over every ${first.name}'s range (a full scan)`,
        };
      return {
        ...base,
        status: "not-simulated",
        fanout: schema.bucketCount,
        reason:
          "reads a window of the whole table (the current key orders rows by time or a counter, not per writer), one range per salt bucket; the simulator does not place reads across writers",
      };
    }
    if (unreadable) {
      return {
        ...base,
        status: "cannot-serve",
        reason: `one ${listed(writers)}'s rows are not one key range: ${leading?.name ?? "another field"} comes before ${listed(writers)}, so the read scans every writer's rows and filters`,
      };
    }
    if (read.kind === "scan") {
      const afterWriters = keyFields[keyFields.findIndex((field) => field.name === writers.at(-1)) + 1];
      if (afterWriters?.role.kind !== "time")
        return {
          ...base,
          status: "cannot-serve",
          reason: `a time window of one ${listed(writers)} is not a key range: ${afterWriters?.name ?? "nothing"} follows ${listed(writers)} in the key, not the time`,
        };
    }
    const queries = Array.isArray(row.entityQueries) ? row.entityQueries : [];
    return {
      ...base,
      status: "simulated",
      fanout: queries.reduce((sum, query) => sum + schema.plan(query).fanout, 0),
    };
  });
}
