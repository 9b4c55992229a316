/**
 * Evidence a diagnosis refuses to read, each with a code, the figures and what to do: a schema that
 * does not fit the table's keys (most of the sample undecodable, or the table's recorded schema
 * fingerprint differs), and hot tablets whose peak the cluster's nodes could not have carried.
 * A diagnosis built on a wrong schema or a wrong cluster's answer would send an engineer the wrong
 * way, so these stop it (exit non-zero) unless forced. Pure.
 */
export type RefusalCode = "schema-does-not-fit" | "schema-fingerprint-differs" | "peak-exceeds-nodes";

export class DiagnoseRefusal extends Error {
  override readonly name = "DiagnoseRefusal";
  constructor(
    readonly code: RefusalCode,
    message: string,
    /** The figures the refusal rests on. */
    readonly details: Record<string, number | string>,
    /** Whether `force` reads the evidence anyway. */
    readonly forcible: boolean,
  ) {
    super(message);
  }
}

/**
 * Assumption: more than this share of the sampled keys undecodable is a schema that does not fit
 * ("most of the sample"); a few foreign rows (another app's, a migration's) are counted, not refused.
 */
export const UNDECODABLE_SHARE_AT_MOST = 0.5;

/** Refuses a schema most sampled keys do not decode under, and a recorded fingerprint that differs. */
export function checkSchemaFits(
  fingerprint: string,
  sample: { keys: number; undecoded: number },
  recordedFingerprint: string | undefined,
): void {
  if (recordedFingerprint !== undefined && recordedFingerprint !== fingerprint)
    throw new DiagnoseRefusal(
      "schema-fingerprint-differs",
      `--schema does not fit the table: the table records schema ${recordedFingerprint} (keyspread's schema row), the schema given is ${fingerprint}; pass the table's schema, or --force to read it with this one`,
      { recorded: recordedFingerprint, given: fingerprint },
      true,
    );
  if (sample.keys > 0 && sample.undecoded / sample.keys > UNDECODABLE_SHARE_AT_MOST)
    throw new DiagnoseRefusal(
      "schema-does-not-fit",
      `--schema does not fit the table: ${sample.undecoded} of ${sample.keys} sampled keys (${((100 * sample.undecoded) / sample.keys).toFixed(1)} %, more than ${UNDECODABLE_SHARE_AT_MOST * 100} %) are not keys of the schema; pass the table's schema, or --force to read it with this one`,
      { undecoded: sample.undecoded, keys: sample.keys, undecodableShareAtMost: UNDECODABLE_SHARE_AT_MOST },
      true,
    );
}
