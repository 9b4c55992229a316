/**
 * How a design serves each declared read: as key ranges the simulator replays, as key ranges the
 * simulator cannot place yet (a point get, or a time window of the whole table, on a key a time or
 * counter leads), or not as key ranges at all (one writer's rows spread over the whole key space).
 * Fan-outs come from the design's own planner.
 */
import { compileSchema } from "../keys/index.js";
import { type Design, type ReadPattern, type Scenario, sampleRows } from "../sim/index.js";
import { keyRoles } from "./field-roles.js";

export interface ReadService {
  name: string;
  kind: ReadPattern["kind"];
  perS: number;
  status: "simulated" | "not-simulated" | "cannot-serve";
  /** Ranges one read touches under the design (its read amplification in requests). */
  fanout?: number;
  /** Why the read is not simulated or cannot be served, in the key's terms. */
  reason?: string;
}

const listed = (names: readonly string[]) =>
  names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;

/** Key fields the group fills from a template: the fields that identify one of its writers. */
function writerFields(scenario: Scenario, design: Design, group: string): string[] {
  const fields = scenario.workload.groups.find((each) => each.name === group)!.fields;
  const roles = keyRoles(scenario, design.schema);
  return roles.fields
    .filter((field) => field.inKey && typeof fields[field.name] === "string")
    .map((field) => field.name);
}

export function readServices(scenario: Scenario, design: Design): ReadService[] {
  const reads = scenario.workload.reads;
  if (reads.length === 0) return [];
  const schema = compileSchema(design.schema);
  const rows = sampleRows({ ...scenario, designs: [design] }, design.name, {
    count: scenario.workload.groups.length,
    overS: 1,
  });
  const roles = keyRoles(scenario, design.schema);
  const keyFields = roles.fields.filter((field) => field.inKey);
  return reads.map((read): ReadService => {
    const base = { name: read.name, kind: read.kind, perS: read.perS };
    const row = rows.find((each) => each.group === read.group)!;
    const unreadable = "unreadable" in row.entityQueries;
    const writers = writerFields(scenario, design, read.group);
    const first = keyFields.find((field) => field.role.kind !== "pick");
    if (read.kind === "get") {
      const fanout = schema.plan({ eq: row.values }).fanout;
      return unreadable
        ? {
            ...base,
            status: "not-simulated",
            fanout,
            reason: `a point get of one row by its whole key; the simulator does not place reads on a key that ${first?.name ?? "a time"} leads`,
          }
        : { ...base, status: "simulated", fanout };
    }
    if (writers.length === 0) {
      // No writer in the key: the read is a window of the whole table, one range per bucket.
      return {
        ...base,
        status: "not-simulated",
        fanout: schema.bucketCount,
        reason: `reads the newest rows of the whole table (no writer in the key), one range per salt bucket; the simulator does not place reads across writers`,
      };
    }
    if (unreadable) {
      return {
        ...base,
        status: "cannot-serve",
        reason: `one ${listed(writers)}'s rows are not one key range: ${first?.name ?? "another field"} comes before ${listed(writers)}, so the read scans every writer's rows and filters`,
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
    if (Array.isArray(row.entityQueries)) {
      const fanout = row.entityQueries.reduce((sum, query) => sum + schema.plan(query).fanout, 0);
      return { ...base, status: "simulated", fanout };
    }
    return { ...base, status: "simulated" };
  });
}
