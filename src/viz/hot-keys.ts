/**
 * Names the one key behind a hot row: one more pass over the log counts, within each hot row's,
 * band's or sudden range's keys and time span, the operations per key, and names the busiest when
 * it alone carries the hot-row rule's share of all operations in that span. A heatmap row holds
 * many keys; the user asks about one.
 */
import type { AccessRecord } from "../access-log/access-record.js";
import { displayKey } from "../keys/key-text.js";
import type { KeySchema } from "../keys/types.js";
import { readAccessRecords, type ScanOptions } from "./input/access-log.js";
import type { HeatMetric } from "./matrix/heat-matrix.js";
import type { PatternFinding } from "./patterns/finding.js";
import { RULES } from "./patterns/rules.js";

/** Findings that may be one key's doing. */
const NARROW_KINDS = new Set<PatternFinding["kind"]>(["hot-row", "sudden-hot-range", "hot-band"]);

/** Distinct keys counted per finding at most (a narrow range holds few; this bounds memory). */
const MAX_KEYS_PER_FINDING = 100_000;

/** The key as the schema reads it (`order#000001000906` → its fields), else its text. */
export function decodedKeyText(key: Buffer, schema: KeySchema | undefined): string {
  if (!schema) return displayKey(key);
  try {
    const { values } = schema.decode(key) as { values: Record<string, unknown> };
    const fields = Object.entries(values).map(([field, value]) => `${field} ${String(value)}`);
    return `${displayKey(key)} (${fields.join(", ")})`;
  } catch {
    return displayKey(key);
  }
}

/** The findings, those one key dominates with `hotKey` set (their summary names it). */
export async function nameHotKeys(
  path: string,
  findings: readonly PatternFinding[],
  options: ScanOptions & { schema?: KeySchema; metric?: HeatMetric },
): Promise<PatternFinding[]> {
  const counted = (op: AccessRecord["op"]) =>
    options.metric === "reads" ? op !== "write" : options.metric === "writes" ? op === "write" : true;
  const hot = findings.filter((finding) => NARROW_KINDS.has(finding.kind));
  if (hot.length === 0) return [...findings];
  const counts = hot.map(() => new Map<string, number>());
  const totals = hot.map(() => 0);
  await readAccessRecords(path, options, (record) => {
    if (!counted(record.op)) return;
    const s = record.tsMs / 1000;
    for (const [index, finding] of hot.entries()) {
      if (s < finding.fromS || s >= finding.toS) continue;
      totals[index]!++;
      const key = record.key;
      if (Buffer.compare(key, finding.start) < 0) continue;
      if (finding.end !== null && Buffer.compare(key, finding.end) >= 0) continue;
      const map = counts[index]!;
      const hex = key.toString("hex");
      if (map.has(hex) || map.size < MAX_KEYS_PER_FINDING) map.set(hex, (map.get(hex) ?? 0) + 1);
    }
  });
  return findings.map((finding) => {
    const index = hot.indexOf(finding);
    if (index < 0 || totals[index] === 0) return finding;
    const [hex, count] = [...counts[index]!].reduce<[string, number]>(
      (best, each) => (each[1] > best[1] ? each : best),
      ["", 0],
    );
    const share = count / totals[index]!;
    if (share < RULES.hotRow.minShare) return finding;
    return { ...finding, hotKey: { key: decodedKeyText(Buffer.from(hex, "hex"), options.schema), share } };
  });
}
