/** A diagnosis in words: what is hot, decoded; what it means; what to do; the ready scenario. Pure. */

import { type DecodedBoundary, valueText } from "../decode/decoded-boundary.js";
import type { DecodedHotRange } from "../decode/decoded-hot-range.js";
import type { DiagnoseNote } from "../diagnose-table.js";
import type { DiagnosisKind, Fact, Remedy } from "../diagnosis/classify.js";
import type { DiagnoseReport, ScenarioProblem } from "../diagnosis/diagnose.js";

const TITLES: Record<DiagnosisKind, string> = {
  "no-hot-tablets": "No hot tablets in the window",
  "one-hot-row": "One hot row",
  "one-hot-entity": "One hot entity (one writer's rows)",
  "narrow-hot-range": "A narrow hot range of few entities",
  "wide-hot-range": "A wide hot range of many entities",
  "moving-tail": "A moving tail (sequential or time-first key)",
  "even-near-capacity": "An even load near capacity",
};

const REMEDIES: Record<Remedy, string> = {
  "shard-the-row":
    "No split can help: a tablet cannot be smaller than one row, and more nodes do not split it. Shard that row: add `writeShards: { count, entities: [the row's leading fields] }` to the key schema, so SaltedTable spreads its writes over `count` physical rows and merges them on read (`keyspread advise` with the scenario below proposes the count and simulates it).",
  "spread-the-entity":
    "Fix the key, not the cluster: one entity's newest rows sort next to each other, so one tablet on one node takes its every write, and neither a split nor more nodes spread it. Spread that entity's writes: add `writeShards: { count, entities: [its fields] }` to the key schema (SaltedTable merges the shards on read), or promote a field that varies within the entity (a metric, a time bucket) ahead of the time. `keyspread lab --scenario` on the scenario below shows the hot node.",
  "spread-the-few-keys":
    "Fix the key, not the cluster: a split can at best give each of these few entities a tablet of its own, on a node each. Spread them: salt the key over the fields that name them, or shard their writes (`keyspread advise` with the scenario below tries bucket counts).",
  "capacity-not-the-key":
    "Many keys share the heat, so Bigtable's splits and balancer spread it over nodes once the range is warm: this is capacity, not the key. Add nodes (or let autoscaling), and warm new tables before they take full load.",
  "lead-with-a-spreading-field":
    "Every new row sorts after the last one, so the newest tablet takes every write and no split helps for long. Put a spreading field (a salt over the entity, or the entity itself) before the time or sequence.",
  "add-nodes":
    "The heat is spread over the key space: the key is doing its job and the cluster is near capacity. Add nodes (or raise autoscaling's limits).",
  "nothing-to-do":
    "Bigtable reported no hot tablet for this table in the window. Widen --since (up to 14 days), or look at another cluster.",
};

function factText(fact: Fact): string {
  switch (fact.kind) {
    case "no-hot-tablets":
      return "no hot tablet of this table in the window";
    case "single-key":
      return `the hot tablet starts and ends at the same key (${fact.text === undefined ? `0x${fact.key}` : JSON.stringify(fact.text)})`;
    case "sampled-keys-in-range":
      return `${fact.count} distinct sampled keys fall in the hottest range`;
    case "entities-in-range":
      return `the hottest range holds ${fact.count} entit${fact.count === 1 ? "y" : "ies"} (${fact.fields.join(", ")}; a narrow range holds at most ${fact.narrowAtMost})`;
    case "sequential-key":
      return `the key sample shows ${fact.field} moving with every write at the front of the key`;
    case "reaches-table-end":
      return "the hottest range reaches the end of the table (where new rows of a sequential key land)";
    case "moves-forward":
      return `${fact.ranges} hot ranges, in the order they were hot, move forward through the key space`;
    case "hot-ranges":
      return `${fact.count} hot range${fact.count === 1 ? "" : "s"}; the hottest runs ${fact.maxOverMedianCpu.toFixed(2)}× the median`;
    case "hot-share-of-sample":
      return `${(fact.share * 100).toFixed(0)} % of the sampled keys lie in hot ranges`;
    case "cpu":
      return `hottest: ${fact.percent.toFixed(0)} %, hot in ${fact.recurrences} window${fact.recurrences === 1 ? "" : "s"}`;
  }
}

export function boundaryText(boundary: DecodedBoundary, edge: "start" | "end", salted: boolean): string {
  switch (boundary.kind) {
    case "table-edge":
      return `(table ${edge})`;
    case "decoded":
      return [
        ...(salted ? [`bucket ${boundary.bucket}`] : []),
        ...Object.entries(boundary.values).map(([field, value]) => `${field}=${valueText(value)}`),
      ].join(" · ");
    case "raw":
      return `raw ${boundary.text === undefined ? `0x${boundary.hex}` : JSON.stringify(boundary.text)}${boundary.bucket === undefined ? "" : ` (bucket ${boundary.bucket})`} — not a key of the schema`;
  }
}

function hotRangeLines(range: DecodedHotRange, cpuWord: string, salted: boolean): string[] {
  const [first, ...later] = range.windows;
  const last = later.at(-1) ?? first;
  return [
    `- ${range.maxCpuPercent.toFixed(0)} % ${cpuWord}, hot ${range.windows.length}× (${first.start.toISOString()} – ${last.end.toISOString()})`,
    `  from ${boundaryText(range.start, "start", salted)}`,
    `  to   ${boundaryText(range.end, "end", salted)}`,
    `  sampled keys inside: ${range.sampledKeys}${salted && range.buckets.length ? `; buckets ${range.buckets.join(", ")}` : ""}`,
    ...range.fields.map(
      (span) =>
        `  ${span.field}: ${span.distinct === 1 ? span.min : `${span.distinct} values, ${span.min} … ${span.max}`}`,
    ),
  ];
}

function scenarioProblemText(problem: ScenarioProblem): string {
  switch (problem.kind) {
    case "empty-sample":
      return "the key sample is empty: there is no key to model";
    case "no-nodes":
      return "no node count: pass --nodes N (the cluster's nodes; Bigtable's are read from the cluster unless a recorded answer is used)";
    case "no-rates":
      return "no rates: pass --rates writes=N,… (no hot tablet implies a write rate)";
    case "rates-below-hot-ranges":
      return `--rates writes=${problem.givenWritesPerS}: the hot ranges alone carried ${Math.round(problem.hotWritesPerS)} writes/s at the peak (their CPU share of a node × ${Math.round(problem.nodeWritesPerS)} writes/s a node carries): give the table's whole write rate`;
    case "invalid-scenario":
      return problem.message;
  }
}

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

const NOTES: Record<DiagnoseNote, string> = {
  "no-hot-tablet-api": "The embedded store has no hot-tablet API: the heat comes from the access log.",
  "sample-timed-out":
    "The key sample stopped at its deadline: it holds fewer keys than asked (raise --sample-timeout).",
};

export interface DiagnoseTextOptions {
  /** Where scenario.yaml was written. */
  scenarioPath?: string;
  notes?: readonly DiagnoseNote[];
}

export function diagnoseText(report: DiagnoseReport, options: DiagnoseTextOptions = {}): string {
  const { scenarioPath } = options;
  const notes = (options.notes ?? []).map((note) => NOTES[note]);
  const lines: string[] = [
    `# keyspread diagnose: ${report.store} table ${report.table}`,
    "",
    ...notes,
    ...(notes.length ? [""] : []),
  ];
  const { heat } = report;
  if (heat.kind === "hot-tablets")
    lines.push(
      `Hot tablets of cluster ${heat.cluster}, ${heat.start.toISOString()} – ${heat.end.toISOString()}:`,
    );
  else
    lines.push(
      `Hot ranges of the access log (${heat.records} operations; % is a range's share of a window's operations):`,
    );
  const cpuWord = heat.kind === "hot-tablets" ? "node CPU" : "of logged operations";
  if (report.hotRanges.length === 0) lines.push("- none");
  if (heat.kind === "hot-tablets" && heat.otherTables?.length)
    lines.push(
      `The recorded answer also held hot tablets of other tables, not read: ${heat.otherTables.map((other) => `${other.table} (${other.tablets})`).join(", ")}${report.hotRanges.length === 0 ? ` — none of ${report.table}: is it the answer for this table?` : ""}`,
    );
  for (const range of report.hotRanges) lines.push(...hotRangeLines(range, cpuWord, report.bucketCount > 1));
  if (report.shares) {
    const { shares } = report;
    lines.push("", `Tablets (SampleRowKeys): ${shares.tablets.length}, ${shares.totalBytes} bytes.`);
    if (shares.byBucket.length)
      lines.push(
        `By bucket: ${shares.byBucket.map((each) => `${each.bucket}: ${percent(each.share)}`).join(", ")}`,
      );
    if (shares.byLeadingField?.values.length)
      lines.push(
        `By ${shares.byLeadingField.field}: ${shares.byLeadingField.values
          .slice(0, 10)
          .map((each) => `${each.value}: ${percent(each.share)}`)
          .join(", ")}`,
      );
    if (shares.undecoded)
      lines.push(`${shares.undecoded} tablet boundaries are not keys of the schema (shown raw).`);
  }
  const { sample } = report;
  lines.push("", `Key sample: ${sample.keys} keys.`);
  if (sample.undecoded.count)
    lines.push(
      `${sample.undecoded.count} keys are not keys of the schema (counted, not decoded), e.g. ${sample.undecoded.examples.map((key) => (key.text === undefined ? `0x${key.hex}` : JSON.stringify(key.text))).join(", ")}`,
    );
  if (sample.reserved)
    lines.push(
      `${sample.reserved} key of keyspread's own reserved range (its schema row) left out of the sample.`,
    );
  if (sample.structure) lines.push(`Inferred key: ${sample.structure.explanation}`);
  for (const refusal of report.forced) lines.push(`Forced (--force): ${refusal.message}`);
  const { diagnosis } = report;
  lines.push(
    "",
    `## ${TITLES[diagnosis.kind]}`,
    "",
    "Evidence:",
    ...diagnosis.facts.map((fact) => `- ${factText(fact)}`),
    "",
    `What to do: ${REMEDIES[diagnosis.remedy]}`,
    "",
  );
  if (report.scenario)
    lines.push(
      scenarioPath
        ? `Scenario: ${scenarioPath} (keyspread lab --scenario / advise --scenario / replay)`
        : "Scenario: pass --out DIR to write scenario.yaml",
    );
  else if (report.scenarioProblem) lines.push(`No scenario: ${scenarioProblemText(report.scenarioProblem)}`);
  return `${lines.join("\n")}\n`;
}
