/** Arrival patterns as a rate multiplier over time whose long-run mean is 1. */
import type { Arrival } from "./scenario.js";

const DAY_S = 86400;

/** Multiplier of the mean rate at `tS` seconds after `startMs` (epoch ms): a function of the wall clock. */
export function arrivalMultiplier(arrival: Arrival, tS: number, startMs: number): number {
  switch (arrival.kind) {
    case "steady":
      return 1;
    case "burst": {
      // Bursts keep the wall clock (an hourly job at the top of each hour), like the diurnal peak, so
      // a run placed anywhere in the cycle sees the same bursts.
      const wallS = startMs / 1000 + tS;
      const phase = ((wallS % arrival.every) + arrival.every) % arrival.every;
      return phase < arrival.window ? arrival.every / arrival.window : 0;
    }
    case "diurnal": {
      const secondOfDay = (startMs / 1000 + tS) % DAY_S;
      return (
        1 + arrival.amplitude * Math.cos((2 * Math.PI * (secondOfDay - arrival.peakHour * 3600)) / DAY_S)
      );
    }
  }
}

/** Mean multiplier over `[tS, tS + dtS)`, so steps longer than a burst window still carry the right load. */
export function meanMultiplier(arrival: Arrival, tS: number, dtS: number, startMs: number): number {
  if (arrival.kind === "steady") return 1;
  const probes = Math.max(1, Math.ceil(dtS));
  let sum = 0;
  for (let k = 0; k < probes; k++)
    sum += arrivalMultiplier(arrival, tS + ((k + 0.5) * dtS) / probes, startMs);
  return sum / probes;
}

/** The largest multiplier the pattern ever reaches. */
export function peakMultiplier(arrival: Arrival): number {
  switch (arrival.kind) {
    case "steady":
      return 1;
    case "burst":
      return arrival.every / arrival.window;
    case "diurnal":
      return 1 + arrival.amplitude;
  }
}
