/**
 * The `/heatmap` page: the recent access records (rows written and read) as the same self-contained
 * heatmap `keyspread heatmap` draws from a log file, reloading itself so it stays live.
 */

import type { AccessRecord } from "../../access-log/access-record.js";
import type { KeySchema } from "../../keys/types.js";
import { matrixFromRecords } from "../../viz/matrix/records-matrix.js";
import { renderHeatmapHtml } from "../../viz/render/html.js";

/** `naming`: the service's key schema, so rows read as bucket and fields (other tables' keys fall back to text). */
export function renderLiveHeatmap(
  records: readonly AccessRecord[],
  refreshSeconds: number,
  naming?: KeySchema,
): string {
  const refresh = `<meta http-equiv="refresh" content="${refreshSeconds}">`;
  if (records.length === 0) {
    return `<!doctype html><html><head>${refresh}<title>keyspread serve: heatmap</title></head><body><p>No store traffic yet; this page reloads every ${refreshSeconds} s.</p></body></html>`;
  }
  const matrix = matrixFromRecords(records, { maxRows: 256, maxColumns: 120, ...(naming ? { naming } : {}) });
  const html = renderHeatmapHtml([{ name: "keyspread serve: store rows written and read", matrix }], {
    title: `keyspread serve: live heatmap (last ${records.length} accesses, reloads every ${refreshSeconds} s)`,
  });
  return html.replace(/<head>/i, `<head>${refresh}`);
}
