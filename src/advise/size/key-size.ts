/**
 * How many bytes of row key a design stores per second: mean encoded key length over sample writes
 * of every group, times rows written. The difference between two designs is the storage cost of a
 * key change (a salt prefix on every row; a promoted field; fewer rows when batching).
 */
import { compileSchema } from "../../keys/index.js";
import type { Scenario, ScenarioDesign } from "../../sim/scenario/scenario.js";
import { CompiledGroup } from "../../sim/workload/workload.js";
import { writeKey } from "../../sim/workload/write-shard-keys.js";

export interface KeyFootprint {
  /** Mean row-key length, bytes (weighted by each group's rows). */
  keyBytesPerRow: number;
  /** Bytes of every key the salt prefix takes. */
  saltBytesPerRow: number;
  /** Rows written per second (fewer than points when batching). */
  rowsPerS: number;
  /** Bytes written per second at the groups' mean rates (not their peaks): what a retention keeps. */
  bytesPerS: number;
}

const SAMPLE_WRITES = 64;

export function keyFootprint(scenario: Scenario, design: ScenarioDesign): KeyFootprint {
  const schema = compileSchema(design.schema);
  const startMs = Date.parse(scenario.start);
  let rowsPerS = 0;
  let keyBytesPerS = 0;
  let bytesPerS = 0;
  for (const group of scenario.workload.groups) {
    const compiled = new CompiledGroup(schema, group, design, scenario.workload.rowBytes, startMs);
    let bytes = 0;
    for (let k = 0; k < SAMPLE_WRITES; k++) {
      const entity = Math.floor((k * group.entities) / SAMPLE_WRITES);
      bytes += writeKey(schema, compiled.writeValues(entity, k, k), k).length;
    }
    rowsPerS += compiled.opsPerS;
    bytesPerS += compiled.opsPerS * compiled.rowBytes;
    keyBytesPerS += (bytes / SAMPLE_WRITES) * compiled.opsPerS;
  }
  return {
    keyBytesPerRow: rowsPerS > 0 ? keyBytesPerS / rowsPerS : 0,
    saltBytesPerRow: schema.saltPrefixLength,
    rowsPerS,
    bytesPerS,
  };
}
