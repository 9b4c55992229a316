/**
 * Heatmap matrix from an access log file: the two passes of `records-matrix.ts` (sample distinct
 * keys, then bin records) with one read of the file. The read validates every record and keeps it
 * compactly; the binning pass runs over what was kept. A log longer than `keptRecords` is read a
 * second time instead, so memory stays bounded. The matrix is the same either way.
 */
import { parseKeyText } from "../../keys/key-text.js";
import { readAccessLog, readAccessRecords, type ScanOptions } from "../input/access-log.js";
import type { HeatMatrix } from "./heat-matrix.js";
import { KeptRecords } from "./kept-records.js";
import { AccessSampler, type RecordsMatrixOptions } from "./records-matrix.js";

export interface AccessLogMatrixOptions extends RecordsMatrixOptions, ScanOptions {
  /** Records kept in memory to bin without a second read (~29 bytes each); default 2,000,000. */
  keptRecords?: number;
}

const DEFAULT_KEPT_RECORDS = 2_000_000;

export async function readAccessLogMatrix(
  path: string,
  options: AccessLogMatrixOptions = {},
): Promise<HeatMatrix> {
  const sampler = new AccessSampler(options);
  const kept = new KeptRecords(options.keptRecords ?? DEFAULT_KEPT_RECORDS, (key) => sampler.addKey(key));
  await readAccessLog(
    path,
    { ...options, parseKey: kept.parseKey },
    {
      // A kept record's key went to the sampler when first seen; past the capacity, every key does.
      line: (line, bytes) => {
        if (kept.addLine(line, bytes)) sampler.addTime(line.tsMs);
        else sampler.add(line.toRecord(bytes, parseKeyText));
      },
      record: (record) => {
        if (kept.add(record)) sampler.addTime(record.tsMs);
        else sampler.add(record);
      },
    },
  );
  const binner = sampler.binner();
  if (kept.overflowed) {
    await readAccessRecords(path, { ...options, pass: 2 }, (record) => binner.add(record));
  } else kept.binInto(binner);
  return binner.finish();
}
