/**
 * A sample of the rows a scenario's workload writes under one design — real field values and
 * their keys from the design's schema — for writing and reading them back through a real table.
 */
import { compileSchema } from "../../keys/index.js";
import type { FieldValues, Query } from "../../keys/types.js";
import { findScenarioDesign, type Scenario } from "../scenario/scenario.js";
import { CompiledGroup } from "./workload.js";
import { writeKey } from "./write-shard-keys.js";

export interface SampleRow {
  group: string;
  entity: number;
  values: FieldValues;
  key: Buffer;
  /**
   * The queries that together read this row's entity (one unless the key leads with a picked
   * field), or why the design's key cannot read one entity as key ranges.
   */
  entityQueries: Query[] | { unreadable: string };
}

export interface SampleRowsOptions {
  /** Rows in all (default 1,000), shared among groups in proportion to their writes. */
  count?: number;
  /** Seconds after the scenario's start the rows are written over (default 60). */
  overS?: number;
  /** Distinct entities per group (default: as many as rows), so an entity can have many rows to read back. */
  entitiesPerGroup?: number;
}

/** `count` rows from design `designName`, entities spread evenly over each group, times over `overS`. */
export function sampleRows(
  scenario: Scenario,
  designName: string,
  options: SampleRowsOptions = {},
): SampleRow[] {
  const design = findScenarioDesign(scenario, designName);
  const count = options.count ?? 1000;
  const overS = options.overS ?? 60;
  if (!Number.isSafeInteger(count) || count < 1) throw new Error(`count: ${count} is not a positive integer`);
  const schema = compileSchema(design.schema);
  const startMs = Date.parse(scenario.start);
  const groups = scenario.workload.groups.map(
    (group) => new CompiledGroup(schema, group, design, scenario.workload.rowBytes, startMs),
  );
  const total = groups.reduce((sum, group) => sum + group.opsPerS, 0);
  const rows: SampleRow[] = [];
  for (const group of groups) {
    const share = Math.max(1, Math.round((count * group.opsPerS) / total));
    const spread = Math.min(share, options.entitiesPerGroup ?? share, group.entities);
    const unreadable = group.unreadableReason();
    for (let k = 0; k < share; k++) {
      const entity = Math.floor((((k % spread) + 0.5) * group.entities) / spread) % group.entities;
      const values = group.writeValues(entity, (k * overS) / share, k);
      rows.push({
        group: group.name,
        entity,
        values,
        key: writeKey(schema, values, k),
        entityQueries: unreadable === undefined ? group.entityQueries(entity, {}) : { unreadable },
      });
    }
  }
  return rows;
}
