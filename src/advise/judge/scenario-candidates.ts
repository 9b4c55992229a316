/**
 * A scenario's own designs as the advisor's candidates (for the lab): each design's changes
 * against the baseline read off its schema — a salt, a field moved to the front, a timestamp
 * or a sequence reversed, batching — so the advisor's rules judge hand-written designs as they judge its own.
 */
import type { SchemaSpec } from "../../keys/types.js";
import type { ScenarioDesign } from "../../sim/scenario/scenario.js";
import { type CandidateDesign, candidateFrom } from "./candidates.js";
import type { KeyChange } from "./design-name.js";

type FieldSegment = Extract<SchemaSpec["segments"][number], { field: string }>;

const fieldsOf = (spec: SchemaSpec) =>
  spec.segments.filter((segment): segment is FieldSegment => "field" in segment);

/** What `design` changes against `baseline`, in the advisor's terms. */
function changesFrom(baseline: ScenarioDesign, design: ScenarioDesign): KeyChange[] {
  const changes: KeyChange[] = [];
  const before = fieldsOf(baseline.schema);
  const after = fieldsOf(design.schema);
  const first = after[0]?.field;
  if (first !== undefined && first !== before[0]?.field) changes.push({ kind: "promote", field: first });
  for (const segment of after) {
    const old = before.find((each) => each.field === segment.field);
    const reversed = (codec: FieldSegment["codec"] | undefined) =>
      codec?.type === "timestamp" && (codec as { reverse?: boolean }).reverse === true;
    if (segment.codec.type === "timestamp" && reversed(segment.codec) && !reversed(old?.codec))
      changes.push({ kind: "reverse-timestamp", field: segment.field });
    if (segment.codec.type === "reversed-uint" && old?.codec.type !== "reversed-uint")
      changes.push({ kind: "reverse-sequence", field: segment.field });
  }
  const salt = design.schema.salt;
  const baselineSalt = baseline.schema.salt;
  const sameSalt =
    salt?.buckets === baselineSalt?.buckets && salt?.fields?.join("+") === baselineSalt?.fields?.join("+");
  if (salt && !sameSalt)
    changes.push({ kind: "salt", buckets: salt.buckets, fields: [...(salt.fields ?? [])] });
  const shards = design.schema.writeShards;
  if (shards && JSON.stringify(shards) !== JSON.stringify(baseline.schema.writeShards))
    changes.push({
      kind: "write-shards",
      count: shards.count,
      ...(shards.entities ? { entities: shards.entities } : {}),
    });
  if (design.batch !== undefined && design.batch !== baseline.batch)
    changes.push({ kind: "batch", intervalS: design.batch });
  return changes;
}

/** The scenario's designs as candidates, the baseline first (its name kept). */
export function scenarioCandidates(
  designs: readonly ScenarioDesign[],
  baseline: ScenarioDesign,
): CandidateDesign[] {
  return [baseline, ...designs.filter((design) => design !== baseline)].map((design) =>
    candidateFrom(
      design.name,
      design.description ?? design.name,
      design === baseline ? [] : changesFrom(baseline, design),
      design,
      baseline,
    ),
  );
}
