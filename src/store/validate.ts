/**
 * Input checks every store applies before touching its engine (AbstractStore makes them), so that
 * a bad batch is rejected whole (nothing half-written) with a StoreArgumentError naming the field,
 * the value and what is allowed, and all stores agree on what is valid: Bigtable's rules (row keys
 * 1..4096 bytes, no empty rows).
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
function keyProblem(key: unknown, maxKeyBytes: number): ((field: string) => StoreArgumentError) | undefined {
  if (!Buffer.isBuffer(key))
    return (field) =>
      new StoreArgumentError(field, key, "a Buffer", `${field} must be a Buffer, got ${typeof key}`);
  if (key.length === 0 || key.length > maxKeyBytes) {
    const allowed = `1..${maxKeyBytes} bytes`;
    return (field) =>
      new StoreArgumentError(field, key, allowed, `${field} is ${key.length} bytes; keys must be ${allowed}`);
  }
  return undefined;
}

export function checkMutations(mutations: readonly StoreMutation[], maxKeyBytes: number): void {
  if (!Array.isArray(mutations))
    throw new StoreArgumentError("mutations", mutations, "an array", "mutations must be an array");
  for (let index = 0; index < mutations.length; index++) {
    const problem = mutationProblem(mutations[index], maxKeyBytes);
    if (problem !== undefined) throw problem(`mutations[${index}]`);
  }
}

function mutationProblem(
  mutation: StoreMutation | undefined,
  maxKeyBytes: number,
): ((field: string) => StoreArgumentError) | undefined {
  if (typeof mutation !== "object" || mutation === null) {
    const allowed = "a mutation { type, key, … }";
    return (field) =>
      new StoreArgumentError(field, mutation, allowed, `${field} must be ${allowed}, got ${mutation}`);
  }
  const key = keyProblem(mutation.key, maxKeyBytes);
  if (key !== undefined) return (field) => key(`${field}.key`);
  const { type } = mutation;
  if (type === "delete") return qualifiersProblem(mutation as Extract<StoreMutation, { type: "delete" }>);
  if (type !== "put") {
    const allowed = '"put", "delete"';
    return (field) =>
      new StoreArgumentError(
        `${field}.type`,
        type,
        allowed,
        `${field}.type is ${JSON.stringify(type)}; allowed: ${allowed}`,
      );
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
    return (field) =>
      new StoreArgumentError(
        `${field}.replace`,
        replace,
        "true, false",
        `${field}.replace is ${JSON.stringify(replace)}; allowed: true, false`,
      );
  }
  if (!(cells instanceof Map) || cells.size === 0) {
    return (field) =>
      new StoreArgumentError(
        `${field}.cells`,
        cells,
        "a non-empty Map<string, Buffer>",
        `${field}.cells must be a non-empty Map<string, Buffer> (a row needs a cell)`,
      );
  }
  for (const [qualifier, value] of cells) {
    if (typeof qualifier !== "string" || qualifier.length === 0) {
      return (field) =>
        new StoreArgumentError(
          `${field}.cells`,
          qualifier,
          "non-empty string qualifiers",
          `${field}.cells has an empty or non-string qualifier`,
        );
    }
    if (!Buffer.isBuffer(value)) {
      return (field) => {
        const at = `${field}.cells.get(${JSON.stringify(qualifier)})`;
        return new StoreArgumentError(at, value, "a Buffer", `${at} must be a Buffer`);
      };
    }
  }
  return undefined;
}

/** A cell delete names at least one cell: an empty list must not read as "the whole row". */
function qualifiersProblem(
  mutation: Extract<StoreMutation, { type: "delete" }>,
): ((field: string) => StoreArgumentError) | undefined {
  const { qualifiers } = mutation;
  if (qualifiers === undefined) return undefined;
  if (!Array.isArray(qualifiers) || qualifiers.length === 0) {
    return (field) =>
      new StoreArgumentError(
        `${field}.qualifiers`,
        qualifiers,
        "at least one qualifier (no qualifiers: the whole row)",
        `${field}.qualifiers must name at least one cell; leave it out to delete the whole row`,
      );
  }
  const bad = qualifiers.findIndex((qualifier) => typeof qualifier !== "string" || qualifier.length === 0);
  if (bad >= 0) {
    return (field) => {
      const at = `${field}.qualifiers[${bad}]`;
      return new StoreArgumentError(
        at,
        qualifiers[bad],
        "a non-empty string",
        `${at} must be a non-empty string`,
      );
    };
  }
  return undefined;
}

/** Bigtable's app profile ids: a letter, digit or `_`, then letters, digits, `_`, `-`, `.` (at most 50). */
export function checkAppProfile(options: RoutingOptions | undefined): string | undefined {
  const profile = options?.appProfile;
  if (profile === undefined) return undefined;
  if (typeof profile !== "string" || !/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,49}$/.test(profile)) {
    const allowed = "1-50 of A-Z a-z 0-9 _ - . (not starting with - or .)";
    throw new StoreArgumentError(
      "appProfile",
      profile,
      allowed,
      `appProfile ${JSON.stringify(profile)} is not an app profile id; allowed: ${allowed}`,
    );
  }
  return profile;
}

/**
 * Ranges must be sorted and non-overlapping; `end: null` only on the last one. An edge may be one
 * byte longer than a key: the successor of a maximal key (key + 0x00) bounds reads just past it.
 */
export function checkRanges(ranges: readonly KeyRange[], maxKeyBytes: number): void {
  if (!Array.isArray(ranges))
    throw new StoreArgumentError("ranges", ranges, "an array", "ranges must be an array");
  const maxEdgeBytes = maxKeyBytes + 1;
  ranges.forEach((range, index) => {
    const field = `ranges[${index}]`;
    const edgeBytes = `≤ ${maxEdgeBytes} bytes`;
    if (!Buffer.isBuffer(range?.start)) {
      throw new StoreArgumentError(
        `${field}.start`,
        range?.start,
        "a Buffer",
        `${field}.start must be a Buffer`,
      );
    }
    if (range.start.length > maxEdgeBytes) {
      throw new StoreArgumentError(
        `${field}.start`,
        range.start,
        edgeBytes,
        `${field}.start is ${range.start.length} bytes; range edges must be ≤ ${maxEdgeBytes}`,
      );
    }
    if (range.end !== null) {
      if (!Buffer.isBuffer(range.end)) {
        throw new StoreArgumentError(
          `${field}.end`,
          range.end,
          "a Buffer or null",
          `${field}.end must be a Buffer or null`,
        );
      }
      if (range.end.length > maxEdgeBytes) {
        throw new StoreArgumentError(
          `${field}.end`,
          range.end,
          edgeBytes,
          `${field}.end is ${range.end.length} bytes; range edges must be ≤ ${maxEdgeBytes}`,
        );
      }
      if (Buffer.compare(range.start, range.end) > 0) {
        throw new StoreArgumentError(
          `${field}.start`,
          range.start,
          "at most its end",
          `${field}.start is after its end`,
        );
      }
    }
    const next = ranges[index + 1];
    if (next === undefined) return;
    if (range.end === null || Buffer.compare(range.end, next.start) > 0) {
      throw new StoreArgumentError(
        field,
        range,
        "sorted, non-overlapping ranges",
        `${field} overlaps or follows ranges[${index + 1}]; ranges must be sorted`,
      );
    }
  });
}

/** Returns the row limit (Infinity when unset); 0 is allowed and reads nothing. */
export function checkLimit(options: StoreReadOptions | undefined): number {
  const limit = options?.limit;
  if (limit === undefined) return Number.POSITIVE_INFINITY;
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new StoreArgumentError(
      "limit",
      limit,
      "an integer ≥ 0",
      `limit is ${limit}; allowed: an integer ≥ 0`,
    );
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
    throw new StoreArgumentError(
      "condition",
      condition,
      "{ qualifier, equals }",
      "condition must be { qualifier, equals }",
    );
  }
  const { qualifier, equals } = condition;
  if (typeof qualifier !== "string" || qualifier.length === 0) {
    throw new StoreArgumentError(
      "condition.qualifier",
      qualifier,
      "a non-empty string",
      `condition.qualifier is ${JSON.stringify(qualifier)}; allowed: a non-empty string`,
    );
  }
  if (equals !== null && !Buffer.isBuffer(equals)) {
    throw new StoreArgumentError(
      "condition.equals",
      equals,
      "a Buffer or null (the cell is absent)",
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
