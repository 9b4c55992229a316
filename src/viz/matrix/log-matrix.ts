/**
 * Heatmap matrix from an access log file: the two passes of `records-matrix.ts` (sample distinct
 * keys, then bin records) over the file as `input/access-log.ts` streams it.
 */
import { type ScanOptions, scanAccessLog } from "../input/access-log.js";
import type { HeatMatrix } from "./heat-matrix.js";
import { type AccessBinner, AccessSampler, type RecordsMatrixOptions } from "./records-matrix.js";

export interface AccessLogMatrixOptions extends RecordsMatrixOptions, ScanOptions {}

export async function readAccessLogMatrix(
  path: string,
  options: AccessLogMatrixOptions = {},
): Promise<HeatMatrix> {
  const sampler = new AccessSampler(options);
  let binner: AccessBinner | undefined;
  await scanAccessLog(
    path,
    options,
    (record) => sampler.add(record),
    () => {
      const pass2 = sampler.binner();
      binner = pass2;
      return (record) => pass2.add(record);
    },
  );
  return binner!.finish();
}
