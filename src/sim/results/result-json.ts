/** Simulation results as JSON: key bytes as hex; time series and per-tablet load only when asked. */
import type { SimulationResult } from "./results.js";
import type { DesignSensitivity } from "./sensitivity.js";

export interface JsonOptions {
  /** Include each design's time series (`timeline`) — hundreds of points per design. */
  series?: boolean;
  /** Include the per-tablet load behind the heatmaps (`loadSteps`) — large for long runs. */
  loadSteps?: boolean;
  /** Ranges over the model's ends, one per design, from `simulateSensitivity`. */
  sensitivity?: readonly DesignSensitivity[];
}

/** JSON text of `result`: summaries by default, the series and per-tablet load on request. */
export function simulationResultToJson(result: SimulationResult, options: JsonOptions = {}): string {
  return JSON.stringify(
    {
      ...result,
      designs: result.designs.map(({ loadSteps, timeline, ...design }, index) => ({
        ...design,
        ...(options.sensitivity ? { sensitivity: options.sensitivity[index] } : {}),
        ...(options.series ? { timeline } : {}),
        ...(options.loadSteps ? { loadSteps } : {}),
      })),
    },
    (_key, value) => {
      // Buffer.toJSON runs before a replacer sees the value, so key bytes arrive as { type, data }.
      if (value && typeof value === "object" && value.type === "Buffer" && Array.isArray(value.data)) {
        return Buffer.from(value.data).toString("hex");
      }
      return typeof value === "number" && !Number.isFinite(value) ? null : value;
    },
    2,
  );
}
