/**
 * The scenario a load test drives: its groups' entities and write rates and its reads' rates
 * multiplied by `--scale`, on the test instance's nodes. The lab's prediction simulates this same
 * scenario, so prediction and measurement describe one workload. Pure.
 */
import { peakMultiplier } from "../sim/scenario/arrival.js";
import { findScenarioDesign, type Scenario, type ScenarioDesign } from "../sim/scenario/scenario.js";

export interface ScaledScenario {
  scenario: Scenario;
  design: ScenarioDesign;
  scale: number;
}

/** `--scale` outside (0, 1]: a load test drives a share of the scenario, never more than all of it. */
export class ScaleOutOfRangeError extends RangeError {
  override readonly name = "ScaleOutOfRangeError";
  readonly field = "--scale";
  readonly allowed = "(0, 1]";
  constructor(readonly value: number) {
    super(`--scale is ${value}; allowed: a share of the scenario's workload in (0, 1]`);
  }
}

export function scaleScenario(
  scenario: Scenario,
  designName: string,
  scale: number,
  nodes: number,
): ScaledScenario {
  if (!(Number.isFinite(scale) && scale > 0 && scale <= 1)) throw new ScaleOutOfRangeError(scale);
  const design = findScenarioDesign(scenario, designName);
  const scaled: Scenario = {
    ...scenario,
    cluster: { ...scenario.cluster, nodes },
    workload: {
      ...scenario.workload,
      groups: scenario.workload.groups.map((group) => ({
        ...group,
        entities: Math.max(1, Math.round(group.entities * scale)),
        writesPerS: group.writesPerS * scale,
      })),
      reads: scenario.workload.reads.map((read) => ({ ...read, perS: read.perS * scale })),
    },
    // The test instance has `nodes` nodes, whatever the design proposes for production.
    designs: [{ ...design, nodes }],
  };
  return { scenario: scaled, design: scaled.designs[0]!, scale };
}

/**
 * The entities [from, to) of a group that task `index` of `count` drives: contiguous, as even as
 * whole numbers allow. A task drives the group's rate in proportion (a group of fewer entities than
 * tasks leaves some tasks none of it).
 */
export function entityShare(entities: number, index: number, count: number): { from: number; to: number } {
  return {
    from: Math.floor((index * entities) / count),
    to: Math.floor(((index + 1) * entities) / count),
  };
}

/** Operations per second one task is assumed to drive (an assumption; low 2,000 on a small VM, high 20,000). */
export const DEFAULT_TASK_CAPACITY = 5_000;

export class ScaleTooLargeError extends Error {
  override readonly name = "ScaleTooLargeError";
  constructor(
    readonly peakOpsPerS: number,
    readonly tasks: number,
    readonly capacity: number,
    scale: number,
  ) {
    const needed = Math.ceil(peakOpsPerS / capacity);
    const fits = (scale * tasks * capacity) / peakOpsPerS;
    super(
      `--scale ${scale} asks ${Math.round(peakOpsPerS).toLocaleString("en-US")} operations/s at the workload's peak from ${tasks} task(s): ${Math.round(peakOpsPerS / tasks).toLocaleString("en-US")} per task, more than one task drives (--task-capacity ${capacity}); run --tasks ${needed} or --scale ${Number(fits.toPrecision(2))}`,
    );
  }
}

/**
 * Peak operations per second (rows written, at each group's arrival peak, plus reads): refused
 * before anything is written when the tasks cannot drive them. Batched designs write fewer rows;
 * this counts points, the larger figure, so a task is never asked for more than it drives.
 */
export function checkDrivable(scaled: ScaledScenario, tasks: number, capacity: number): number {
  const { workload } = scaled.scenario;
  const peak =
    workload.groups.reduce((sum, group) => sum + group.writesPerS * peakMultiplier(group.arrival), 0) +
    workload.reads.reduce((sum, read) => sum + read.perS, 0);
  if (peak > tasks * capacity) throw new ScaleTooLargeError(peak, tasks, capacity, scaled.scale);
  return peak;
}
