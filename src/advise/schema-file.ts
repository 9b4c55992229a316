/** The recommended key schema as a YAML file for `keyspread keys --schema` and `keyspread table --schema`. */
import { dump as stringify } from "js-yaml";
import type { SchemaSpec } from "../keys/types.js";
import type { Advice } from "./advise.js";
import { describeKeyChange } from "./candidates.js";
import { realSchemaOf } from "./real-key.js";
import type { EvaluatedCandidate } from "./recommend.js";

/** A design's schema as the real key holds it (text ids and times, counters that grow). */
export function realSchema(advice: Pick<Advice, "realKey">, evaluated: EvaluatedCandidate): SchemaSpec {
  return realSchemaOf(evaluated.candidate.design.schema, advice.realKey);
}

/** The file's text, with a comment saying where it comes from and what else the design needs; undefined without a recommendation. */
export function recommendedSchemaFile(advice: Advice): string | undefined {
  const chosen = advice.recommended;
  if (!chosen) return undefined;
  const { changes, design } = chosen.candidate;
  const lines = [
    `Recommended by \`keyspread advise\` for ${advice.scenario}: ${chosen.candidate.name} on ${chosen.nodes} nodes.`,
    ...changes.map((change) => `- ${describeKeyChange(change)}`),
    ...(design.batch === undefined
      ? []
      : [`Not in the key: the ingest tier batches each entity's points of ${design.batch} s into one row.`]),
  ];
  return `${lines.map((line) => `# ${line}`).join("\n")}\n${stringify(realSchema(advice, chosen))}`;
}
