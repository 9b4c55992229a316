/**
 * A note beyond the key in one sentence, the same in every report (Markdown, HTML, the lab's
 * text and advice.json's `text`).
 */

import { formatDuration } from "../../sim/scenario/duration.js";
import type { BeyondTheKey } from "../judge/beyond-the-key.js";
import { percent } from "../judge/score.js";

export function beyondTheKeyText(note: BeyondTheKey): string {
  switch (note.kind) {
    case "no-change":
      return "The current key meets the targets: no key change is needed.";
    case "capacity":
      return note.bound === "storage"
        ? `The data the current key keeps needs ${note.storageNodes} nodes for storage, ${note.cpuNodes} for CPU: storage, not CPU, sizes the cluster. Neither a key change nor batching shrinks the bytes kept; a shorter retention (exporting the rest) or HDD does — see the sizing.`
        : `The current key spreads its load (hottest node ${note.maxOverMedian.toFixed(1)}× the median): the cluster is short of capacity, not of spread. It needs about ${note.nodesNeeded} nodes; a key change moves work, it cannot remove it (batching can).`;
    case "more-nodes-do-not-help":
      return `More nodes will not fix the current key: its hottest node carries one key range (${note.maxOverMedian.toFixed(1)}× the median node, ${percent(note.hottestCpu)} against a ${percent(note.hottestTarget)} target); adding nodes adds cost to ranges that are already cool.`;
    case "analytical-store":
      return `"${note.read}" scans ${formatDuration(note.windowS)} of an entity (about ${Math.round(note.rowsPerScan).toLocaleString("en-US")} rows per scan): that is an analytical query. Read it through Data Boost (no copy, no cluster CPU), or move it to BigQuery (change streams) or Parquet files and keep Bigtable for point lookups and recent windows; the sizing prices the three. No key design makes it cheap.`;
    case "dominant-tenant":
      return `Group "${note.group}" makes ${percent(note.writeShare)} of all writes from ${percent(note.entityShare)} of the entities: show its ingest rate on a dashboard and consider admission control or a table of its own, so one tenant cannot take the shared cluster's write budget.`;
  }
}
