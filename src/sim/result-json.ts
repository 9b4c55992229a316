/** Simulation results as JSON: key bytes as hex, optionally without the (large) per-tablet load. */
import type { SimulationResult } from "./results.js";

/** JSON text of `result`; `loadSteps: false` drops the per-tablet heatmap input. */
export function resultToJson(result: SimulationResult, options: { loadSteps?: boolean } = {}): string {
  const keep = options.loadSteps ?? true;
  return JSON.stringify(
    {
      ...result,
      designs: result.designs.map(({ loadSteps, ...design }) => (keep ? { ...design, loadSteps } : design)),
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
