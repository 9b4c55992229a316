/**
 * Logical prefixes of keys (salt bucket, then leading segments such as tenant or entity): the
 * hierarchy a heatmap labels its key axis with and never merges rows across.
 */

import { displayKey } from "../../keys/key-text.js";
import type { KeySchema } from "../../keys/types.js";
import { VizArgumentError } from "../input/viz-argument-error.js";

export interface KeyPrefixer {
  /** How many prefix levels there are, outermost first. */
  readonly levels: number;
  /** The keys' own segment separator (`#`), which joins a row's labels into a path. */
  readonly separator: string;
  /** The bytes of `key`'s prefix at `level`; the whole key when it is shorter than that prefix. */
  prefix(key: Buffer, level: number): Buffer;
  /** A short label for a prefix produced at `level`, e.g. `bucket 03` or `fleet-7`. */
  label(prefix: Buffer, level: number): string;
}

export interface KeyPrefixOptions {
  /** When given, the salt prefix is level 0 and (text layout) the segments after it follow. */
  schema?: Pick<KeySchema, "saltPrefixLength" | "spec">;
  /** Segment separator for keys without a schema (or a text-layout schema's own); default `#`. */
  separator?: string;
  /** Segment levels below the salt; default 2 (e.g. tenant, entity). */
  segmentLevels?: number;
}

/** Length of `key` up to and including the `count`-th separator after `from`, or the key's length. */
function segmentEnd(key: Buffer, from: number, count: number, separator: number): number {
  let end = from;
  for (let seen = 0; seen < count; seen++) {
    const next = key.indexOf(separator, end);
    if (next < 0) return key.length;
    end = next + 1;
  }
  return end;
}

function stripSeparator(text: string, separator: string): string {
  return text.endsWith(separator) ? text.slice(0, -separator.length) : text;
}

export function keyPrefixer(options: KeyPrefixOptions = {}): KeyPrefixer {
  const schema = options.schema;
  const separatorText = options.separator ?? schema?.spec.separator ?? "#";
  if (separatorText.length !== 1 || separatorText.charCodeAt(0) > 0x7f) {
    throw new VizArgumentError(
      "separator",
      separatorText,
      "exactly one ASCII character",
      `separator "${separatorText}": expected exactly one ASCII character`,
    );
  }
  const separator = separatorText.charCodeAt(0);
  const saltLength = schema?.saltPrefixLength ?? 0;
  const saltLevels = saltLength > 0 ? 1 : 0;
  // Binary-layout keys have no separator to find segments by: only the salt is a known prefix.
  const segmentLevels = schema?.spec.layout === "binary" ? 0 : (options.segmentLevels ?? 2);
  // A text-layout salt may or may not count its trailing separator: segments start after it either way.
  const segmentsStart = (key: Buffer) => (key[saltLength] === separator ? saltLength + 1 : saltLength);
  return {
    levels: saltLevels + segmentLevels,
    separator: separatorText,
    prefix(key, level) {
      if (level < saltLevels) return key.subarray(0, Math.min(saltLength, key.length));
      if (key.length <= saltLength) return key;
      return key.subarray(0, segmentEnd(key, segmentsStart(key), level - saltLevels + 1, separator));
    },
    label(prefix, level) {
      if (level < saltLevels) return `bucket ${stripSeparator(displayKey(prefix), separatorText)}`;
      const segment = prefix.subarray(
        segmentEnd(prefix, segmentsStart(prefix), level - saltLevels, separator),
      );
      return stripSeparator(displayKey(segment), separatorText);
    },
  };
}

/** Hierarchical labels of a key, outermost first, e.g. `["bucket 03", "fleet-7", "device-42"]`. */
export function prefixLabels(prefixer: KeyPrefixer, key: Buffer): string[] {
  const labels: string[] = [];
  for (let level = 0; level < prefixer.levels; level++) {
    labels.push(prefixer.label(prefixer.prefix(key, level), level));
  }
  return labels;
}

/**
 * The deepest prefix level with at most `maxGroups` distinct prefixes among `sortedKeys`: rows never
 * merge across it. Deeper levels with more groups (one per device, say) would forbid the merging
 * that keeps the axis readable. -1 when even level 0 has too many groups.
 */
export function barrierLevel(
  prefixer: KeyPrefixer,
  sortedKeys: readonly Buffer[],
  maxGroups: number,
): number {
  let chosen = -1;
  for (let level = 0; level < prefixer.levels; level++) {
    let groups = 0;
    let previous: Buffer | undefined;
    for (const key of sortedKeys) {
      const prefix = prefixer.prefix(key, level);
      if (previous === undefined || !prefix.equals(previous)) groups++;
      previous = prefix;
      if (groups > maxGroups) return chosen;
    }
    chosen = level;
  }
  return chosen;
}
