/** The recommended key schema as a YAML file for `keyspread keys --schema` and `keyspread table --schema`. */
import { dump as stringify } from "js-yaml";
import type { SchemaSpec } from "../../keys/types.js";
import { realSchemaOf } from "../infer/real-key.js";
import type { Advice } from "../judge/advise.js";
import { describeKeyChange } from "../judge/candidates.js";
import type { EvaluatedCandidate } from "../judge/recommend.js";

/** A design's schema as the real key holds it (text ids and times, counters that grow). */
export function realSchema(advice: Pick<Advice, "realKey">, evaluated: EvaluatedCandidate): SchemaSpec {
  return realSchemaOf(evaluated.candidate.design.schema, advice.realKey);
}

/** The file's text, with a comment saying where it comes from and what else the design needs; undefined without a recommendation. */
export function recommendedSchemaFile(advice: Advice): string | undefined {
  const chosen = advice.recommended;
  if (!chosen) return undefined;
  const { changes, design } = chosen.candidate;
  const schema = realSchema(advice, chosen);
  const lines = [
    `Recommended by \`keyspread advise\` for ${advice.scenario}: ${chosen.candidate.name} on ${chosen.nodes} nodes.`,
    ...changes.map((change) => `- ${describeKeyChange(change)}`),
    ...(design.batch === undefined
      ? []
      : [`Not in the key: the ingest tier batches each entity's points of ${design.batch} s into one row.`]),
    ...gluedWords(schema, advice.realKey),
  ];
  return `${lines.map((line) => `# ${line}`).join("\n")}\n${stringify(schema)}`;
}

/**
 * A word the key writes right before its digits (`txn00001`) is part of the field's value, since a
 * text key separates every segment: say so, or `{"seq": "00001"}` silently makes another key.
 */
function gluedWords(schema: SchemaSpec, realKey: Advice["realKey"]): string[] {
  return schema.segments.flatMap((segment) => {
    const word = "field" in segment ? realKey.glued[segment.field] : undefined;
    if (word === undefined || !("field" in segment)) return [];
    return [
      `Field "${segment.field}" holds the word "${word}" with the digits after it, as the key writes them (no separator between): {"${segment.field}": "${word}…"}, never the digits alone.`,
    ];
  });
}
