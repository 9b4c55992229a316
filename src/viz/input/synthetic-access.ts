/**
 * Synthetic access logs showing each Key Visualizer pattern, for tests, the benchmark and demos.
 * Keys look like `t07#e0001234` (tenant, entity), zero-padded so text order is numeric order.
 */
import type { AccessOp, AccessRecord } from "../../access-log/access-record.js";

export const SYNTHETIC_PATTERNS = [
  "healthy",
  "hot-band",
  "diagonal",
  "periodic",
  "sudden",
  "vertical",
] as const;
export type SyntheticPattern = (typeof SYNTHETIC_PATTERNS)[number];

export interface SyntheticOptions {
  records: number;
  /** Default 600 s. */
  durationS?: number;
  /** Distinct keys; default 20,000. */
  keys?: number;
  tenants?: number;
  startMs?: number;
  seed?: number;
}

function random32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

/** Where each pattern puts a record: fractions of the key space and of the time span, both in [0, 1). */
function placement(pattern: SyntheticPattern, random: () => number): { key: number; time: number } {
  const time = random();
  const uniform = { key: random(), time };
  switch (pattern) {
    case "healthy":
      return uniform;
    case "hot-band":
      return random() < 0.6 ? { key: 0.4 + random() * 0.02, time } : uniform;
    case "diagonal":
      return random() < 0.85 ? { key: Math.min(0.999, time + random() * 0.005), time } : uniform;
    case "periodic": {
      if (random() >= 0.5) return uniform;
      // Ten-second bursts every minute of a 600 s run, on one fifth of the keys.
      const burst = Math.floor(random() * 10);
      return { key: 0.6 + random() * 0.2, time: (burst * 60 + random() * 10) / 600 };
    }
    case "sudden":
      return time >= 0.5 && random() < 0.5 ? { key: 0.7 + random() * 0.02, time } : uniform;
    case "vertical":
      return random() < 0.3 ? { key: random(), time: 0.4 + random() * 0.05 } : uniform;
  }
}

const OPS: readonly AccessOp[] = [
  "read",
  "read",
  "read",
  "read",
  "read",
  "read",
  "read",
  "write",
  "write",
  "scan",
];

export function* syntheticAccess(
  pattern: SyntheticPattern,
  options: SyntheticOptions,
): Generator<AccessRecord> {
  const durationMs = (options.durationS ?? 600) * 1000;
  const keys = options.keys ?? 20_000;
  const tenants = options.tenants ?? 20;
  const startMs = options.startMs ?? Date.UTC(2026, 10, 30, 6, 0, 0);
  const random = random32(options.seed ?? 1);
  for (let index = 0; index < options.records; index++) {
    const { key, time } = placement(pattern, random);
    const entity = Math.floor(key * keys);
    const tenant = Math.floor((entity * tenants) / keys);
    yield {
      tsMs: Math.floor(startMs + time * durationMs),
      key: Buffer.from(`t${String(tenant).padStart(2, "0")}#e${String(entity).padStart(7, "0")}`),
      op: OPS[Math.floor(random() * OPS.length)]!,
      bytes: 100 + Math.floor(random() * 900),
      latencyMs: 1 + random() * 4,
    };
  }
}
