/**
 * What a re-keying copies: rows and bytes. On Bigtable, from SampleRowKeys' byte offsets (no
 * scan): Bigtable closes its answer with an empty key at the table's total bytes; without that
 * sample (Google's emulator) the last offset is only a floor. Rows are the bytes over the bytes a
 * row stores, from a small read or the user. In the lab, from the scenario: the rows and bytes
 * its current key keeps over the retention. Pure.
 */
import type { RowKeySample } from "../../diagnose/decode/tablet-sizes.js";
import { MigrateOptionError } from "../migrate-option-error.js";

export interface TableVolume {
  rows: number;
  storedBytes: number;
  /** How the bytes are known: Bigtable's closing sample, a floor (no closing sample), or the scenario's rate × retention. */
  basis: "sample-row-keys" | "sample-row-keys-floor" | "scan" | "scenario";
}

export function volumeFromSamples(samples: readonly RowKeySample[], rowBytes: number): TableVolume {
  if (!(rowBytes > 0))
    throw new MigrateOptionError(
      "rowBytes",
      rowBytes,
      "a number > 0",
      `row bytes must be > 0, got ${rowBytes}`,
    );
  const end = samples.find((sample) => sample.key.length === 0);
  const storedBytes = end?.offsetBytes ?? Math.max(0, ...samples.map((sample) => sample.offsetBytes));
  return {
    rows: Math.round(storedBytes / rowBytes),
    storedBytes,
    basis: end === undefined ? "sample-row-keys-floor" : "sample-row-keys",
  };
}
