/**
 * Input checks every store applies before touching its engine, so that a bad batch is rejected
 * whole (nothing half-written) with an error naming the field, and all stores agree on what is
 * valid: Bigtable's rules (row keys 1..4096 bytes, no empty rows).
 */
import {
  type CellCondition,
  type KeyRange,
  type RoutingOptions,
  StoreArgumentError,
  type StoreMutation,
  type StoreReadOptions,
} from "./store.js";

/** Bigtable's row-key limit. */
export const BIGTABLE_MAX_KEY_BYTES = 4096;

/**
 * Initial split keys a table may be created with. Bigtable documents no limit; this keeps the
 * CreateTable request small (a table with more buckets is pre-split at evenly spaced ones and
 * Bigtable splits further under load).
 */
export const MAX_INITIAL_SPLITS = 1000;

export function checkKey(key: unknown, field: string, maxKeyBytes: number): asserts key is Buffer {
  const problem = keyProblem(key, maxKeyBytes);
  if (problem !== undefined) throw problem(field);
}

/** Undefined when the key is fine, else a maker of the error (field names are built only on failure). */
function keyProblem(key: unknown, maxKeyBytes: number): ((field: string) => Error) | undefined {
  if (!Buffer.isBuffer(key)) return (field) => new TypeError(`${field} must be a Buffer, got ${typeof key}`);
  if (key.length === 0 || key.length > maxKeyBytes) {
    return (field) => new RangeError(`${field} is ${key.length} bytes; keys must be 1..${maxKeyBytes} bytes`);
  }
  return undefined;
}

export function checkMutations(mutations: readonly StoreMutation[], maxKeyBytes: number): void {
  if (!Array.isArray(mutations)) throw new TypeError("mutations must be an array");
  for (let index = 0; index < mutations.length; index++) {
    const problem = mutationProblem(mutations[index], maxKeyBytes);
    if (problem !== undefined) throw problem(`mutations[${index}]`);
  }
}

function mutationProblem(
  mutation: StoreMutation | undefined,
  maxKeyBytes: number,
): ((field: string) => Error) | undefined {
  if (typeof mutation !== "object" || mutation === null) {
    return (field) => new TypeError(`${field} must be a mutation { type, key, … }, got ${mutation}`);
  }
  const key = keyProblem(mutation.key, maxKeyBytes);
  if (key !== undefined) return (field) => key(`${field}.key`);
  const { type } = mutation;
  if (type === "delete") return qualifiersProblem(mutation as Extract<StoreMutation, { type: "delete" }>);
  if (type !== "put") {
    return (field) => new TypeError(`${field}.type is ${JSON.stringify(type)}; allowed: "put", "delete"`);
  }
  const { cells, replace, timestamps } = mutation as Extract<StoreMutation, { type: "put" }>;
  if (timestamps !== undefined) {
    for (const [qualifier, micros] of timestamps instanceof Map ? timestamps : [["", Number.NaN] as const]) {
      if (!(Number.isSafeInteger(micros) && micros >= 0)) {
        const allowed = "a Map of integer microseconds ≥ 0";
        return (field) =>
          new StoreArgumentError(
            `${field}.timestamps`,
            micros,
            allowed,
            `${field}.timestamps.get(${JSON.stringify(qualifier)}) is ${micros}; allowed: ${allowed}`,
          );
      }
    }
  }
  if (replace !== undefined && typeof replace !== "boolean") {
    return (field) => new TypeError(`${field}.replace is ${JSON.stringify(replace)}; allowed: true, false`);
  }
  if (!(cells instanceof Map) || cells.size === 0) {
    return (field) =>
      new TypeError(`${field}.cells must be a non-empty Map<string, Buffer> (a row needs a cell)`);
  }
  for (const [qualifier, value] of cells) {
    if (typeof qualifier !== "string" || qualifier.length === 0) {
      return (field) => new TypeError(`${field}.cells has an empty or non-string qualifier`);
    }
    if (!Buffer.isBuffer(value)) {
      return (field) => new TypeError(`${field}.cells.get(${JSON.stringify(qualifier)}) must be a Buffer`);
    }
  }
  return undefined;
}

/** A cell delete names at least one cell: an empty list must not read as "the whole row". */
function qualifiersProblem(
  mutation: Extract<StoreMutation, { type: "delete" }>,
): ((field: string) => Error) | undefined {
  const { qualifiers } = mutation;
  if (qualifiers === undefined) return undefined;
  if (!Array.isArray(qualifiers) || qualifiers.length === 0) {
    return (field) =>
      new TypeError(`${field}.qualifiers must name at least one cell; leave it out to delete the whole row`);
  }
  const bad = qualifiers.findIndex((qualifier) => typeof qualifier !== "string" || qualifier.length === 0);
  if (bad >= 0) return (field) => new TypeError(`${field}.qualifiers[${bad}] must be a non-empty string`);
  return undefined;
}

/** Bigtable's app profile ids: a letter, digit or `_`, then letters, digits, `_`, `-`, `.` (at most 50). */
export function checkAppProfile(options: RoutingOptions | undefined): string | undefined {
  const profile = options?.appProfile;
  if (profile === undefined) return undefined;
  if (typeof profile !== "string" || !/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,49}$/.test(profile)) {
    throw new TypeError(
      `appProfile ${JSON.stringify(profile)} is not an app profile id; allowed: 1-50 of A-Z a-z 0-9 _ - . (not starting with - or .)`,
    );
  }
  return profile;
}

/**
 * Ranges must be sorted and non-overlapping; `end: null` only on the last one. An edge may be one
 * byte longer than a key: the successor of a maximal key (key + 0x00) bounds reads just past it.
 */
export function checkRanges(ranges: readonly KeyRange[], maxKeyBytes: number): void {
  if (!Array.isArray(ranges)) throw new TypeError("ranges must be an array");
  const maxEdgeBytes = maxKeyBytes + 1;
  ranges.forEach((range, index) => {
    const field = `ranges[${index}]`;
    if (!Buffer.isBuffer(range?.start)) throw new TypeError(`${field}.start must be a Buffer`);
    if (range.start.length > maxEdgeBytes) {
      throw new RangeError(
        `${field}.start is ${range.start.length} bytes; range edges must be ≤ ${maxEdgeBytes}`,
      );
    }
    if (range.end !== null) {
      if (!Buffer.isBuffer(range.end)) throw new TypeError(`${field}.end must be a Buffer or null`);
      if (range.end.length > maxEdgeBytes) {
        throw new RangeError(
          `${field}.end is ${range.end.length} bytes; range edges must be ≤ ${maxEdgeBytes}`,
        );
      }
      if (Buffer.compare(range.start, range.end) > 0) {
        throw new RangeError(`${field}.start is after its end`);
      }
    }
    const next = ranges[index + 1];
    if (next === undefined) return;
    if (range.end === null || Buffer.compare(range.end, next.start) > 0) {
      throw new RangeError(`${field} overlaps or follows ranges[${index + 1}]; ranges must be sorted`);
    }
  });
}

/** Returns the row limit (Infinity when unset); 0 is allowed and reads nothing. */
export function checkLimit(options: StoreReadOptions | undefined): number {
  const limit = options?.limit;
  if (limit === undefined) return Number.POSITIVE_INFINITY;
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new RangeError(`limit is ${limit}; allowed: an integer ≥ 0`);
  }
  return limit;
}

/** Whether `key` lies before the exclusive `end` (null: the end of the table). */
export function isBeforeEnd(key: Buffer, end: Buffer | null): boolean {
  return end === null || Buffer.compare(key, end) < 0;
}

/** A conditional mutation's test: a non-empty qualifier and a Buffer or null. */
export function checkCondition(condition: CellCondition): void {
  if (typeof condition !== "object" || condition === null) {
    throw new TypeError("condition must be { qualifier, equals }");
  }
  const { qualifier, equals } = condition;
  if (typeof qualifier !== "string" || qualifier.length === 0) {
    throw new TypeError(`condition.qualifier is ${JSON.stringify(qualifier)}; allowed: a non-empty string`);
  }
  if (equals !== null && !Buffer.isBuffer(equals)) {
    throw new TypeError(
      `condition.equals must be a Buffer or null (the cell is absent), got ${typeof equals}`,
    );
  }
}

/** Whether a row's cells (undefined: no row) satisfy a condition. */
export function conditionHolds(
  cells: ReadonlyMap<string, Buffer> | undefined,
  condition: CellCondition,
): boolean {
  const value = cells?.get(condition.qualifier);
  return condition.equals === null ? value === undefined : value?.equals(condition.equals) === true;
}
