/**
 * What a design's workload refuses, as named errors with the facts in fields: a key field a write
 * group gives no value for, and a read whose rows the key cannot reach as key ranges.
 */

/** The `design`'s key has `field`, and write `group` has no value for it. */
export class MissingKeyFieldError extends Error {
  override readonly name = "MissingKeyFieldError";
  constructor(
    readonly design: string,
    readonly group: string,
    readonly field: string,
  ) {
    super(
      `design "${design}": group "${group}" has no value for key field "${field}"; add it under the group's fields (a template, oneOf or sequence)`,
    );
  }
}

/** Read `read` of entity group `group` cannot be planned as key ranges under schema `schema`, for `reason`. */
export class UnplannableReadError extends Error {
  override readonly name = "UnplannableReadError";
  constructor(
    readonly read: string,
    readonly group: string,
    readonly schema: string,
    readonly reason: string,
  ) {
    super(`read "${read}": ${reason}`);
  }
}
