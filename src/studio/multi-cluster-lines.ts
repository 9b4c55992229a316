/** The multi-cluster answer as the lab prints it, one line per text line, table row or list item. */
import type { MultiClusterAnswer } from "../advise/judge/multi-cluster.js";
import { multiClusterReport } from "../advise/report/multi-cluster-report.js";

export function multiClusterLines(answer: MultiClusterAnswer): string[] {
  return multiClusterReport(answer).flatMap((part) =>
    part.kind === "list" ? [part.lines[0]!, ...part.lines.slice(1).map((item) => `  - ${item}`)] : part.lines,
  );
}
