/**
 * The advisor: enumerate candidate key designs for a scenario's workload, replay the workload
 * under each with the simulator, score them against the targets and recommend the simplest that
 * meets them. Pure (the simulator is pure); the CLI reads files and writes the report.
 */
import type { DesignResult } from "../sim/results.js";
import type { Design, Scenario } from "../sim/scenario.js";
import { type SimulationMode, simulateScenario } from "../sim/simulate.js";
import { type BeyondTheKey, beyondTheKey } from "./beyond-the-key.js";
import { type Candidate, enumerateCandidates } from "./candidates.js";
import { type DecisionRow, decisionTable } from "./decision-table.js";
import { type KeyRoles, keyRoles } from "./field-roles.js";
import { type KeyFootprint, keyFootprint } from "./key-size.js";
import { type Evaluated, fewestNodesCandidate, lossReason, meets, simplestMeeting } from "./recommend.js";
import { DEFAULT_TARGETS, failedTargets, scoreDesign, type Targets } from "./score.js";

export interface AdviseOptions {
  /** The scenario design that is the current key; default the first. */
  baseline?: string;
  /** Nodes to plan for; default the baseline's or the scenario's node count. */
  nodes?: number;
  /** Simulated time per candidate; default the scenario's duration. */
  durationS?: number;
  mode?: SimulationMode;
  targets?: Partial<Targets>;
  /** Whether reads allow batching points per entity into one row; default true. */
  batching?: boolean;
  /** Salt bucket counts to try; default 2, 3 and 4 × nodes and the powers of two up to 256. */
  buckets?: readonly number[];
  onProgress?: (progress: AdviceProgress) => void;
}

export interface AdviceProgress {
  candidate: string;
  /** 0-based index of the candidate being simulated, and how many there are. */
  index: number;
  count: number;
  doneS: number;
  totalS: number;
}

export interface Advice {
  scenario: string;
  source?: string;
  nodes: number;
  storage: "ssd" | "hdd";
  durationS: number;
  mode: SimulationMode;
  targets: Targets;
  /** What each field of the baseline key does in the workload. */
  roles: KeyRoles;
  /** Every candidate in enumeration order (as-is first), then any run on more nodes. */
  candidates: Evaluated[];
  recommended: Evaluated | undefined;
  /** The recommendation needs more nodes than planned for (nothing met the targets on them). */
  needsMoreNodes: boolean;
  losers: { name: string; reason: string }[];
  decision: DecisionRow[];
  beyondTheKey: BeyondTheKey[];
}

/** Verification runs on more nodes when nothing meets the targets on the planned count. */
const MORE_NODES_ATTEMPTS = 3;

function selectBaseline(scenario: Scenario, name: string | undefined): Design {
  if (name === undefined) return scenario.designs[0]!;
  const design = scenario.designs.find((each) => each.name === name);
  if (!design) {
    throw new Error(
      `baseline "${name}" is not a design of scenario "${scenario.name}"; designs: ${scenario.designs.map((d) => d.name).join(", ")}`,
    );
  }
  return design;
}

export function adviseScenario(scenario: Scenario, options: AdviseOptions = {}): Advice {
  const {
    nodes: baselineNodes,
    storage: baselineStorage,
    ...baseline
  } = selectBaseline(scenario, options.baseline);
  const nodes = options.nodes ?? baselineNodes ?? scenario.cluster.nodes;
  if (!Number.isInteger(nodes) || nodes < 1) throw new Error(`nodes: ${nodes} is not a whole number ≥ 1`);
  const storage = baselineStorage ?? scenario.cluster.storage;
  const targets = { ...DEFAULT_TARGETS, ...options.targets };
  const durationS = options.durationS ?? scenario.duration;
  const mode = options.mode ?? "fast";
  const planned: Scenario = { ...scenario, cluster: { ...scenario.cluster, nodes, storage } };
  const candidates = enumerateCandidates(planned, baseline, {
    nodes,
    ...(options.batching === undefined ? {} : { batching: options.batching }),
    ...(options.buckets === undefined ? {} : { buckets: options.buckets }),
  });
  const baselineFootprint = keyFootprint(planned, baseline);

  const evaluate = (candidate: Candidate, index: number, count: number, onNodes = nodes): Evaluated => {
    let result: DesignResult;
    let footprint: KeyFootprint;
    try {
      footprint = keyFootprint(planned, candidate.design);
      result = simulateScenario(
        { ...planned, cluster: { ...planned.cluster, nodes: onNodes }, designs: [candidate.design] },
        {
          durationS,
          mode,
          onProgress: (progress) =>
            options.onProgress?.({
              candidate: candidate.name,
              index,
              count,
              doneS: progress.doneS,
              totalS: progress.totalS,
            }),
        },
      ).designs[0]!;
    } catch (error) {
      const message = (error as Error).message;
      return { candidate, nodes: onNodes, failures: [], error: message };
    }
    const scores = scoreDesign(result, footprint, baselineFootprint, targets);
    return {
      candidate,
      nodes: onNodes,
      result,
      scores,
      failures: failedTargets(scores, targets),
    };
  };

  const evaluated = candidates.map((candidate, index) => evaluate(candidate, index, candidates.length));
  let recommended = simplestMeeting(evaluated);
  let needsMoreNodes = false;
  if (!recommended) {
    const fallback = fewestNodesCandidate(evaluated);
    let onNodes = fallback?.scores?.nodesNeeded ?? 0;
    for (let attempt = 0; fallback && onNodes > nodes && attempt < MORE_NODES_ATTEMPTS; attempt++) {
      const name = `${fallback.candidate.name}-on-${onNodes}-nodes`;
      const candidate: Candidate = {
        ...fallback.candidate,
        name,
        description: `${fallback.candidate.description}; on ${onNodes} nodes`,
        design: { ...fallback.candidate.design, name },
      };
      const verified = evaluate(candidate, evaluated.length, evaluated.length + 1, onNodes);
      evaluated.push(verified);
      if (meets(verified)) {
        recommended = verified;
        needsMoreNodes = true;
        break;
      }
      onNodes = Math.max(onNodes + 1, Math.ceil(onNodes * 1.25));
    }
  }
  const asIs = evaluated[0]!;
  return {
    scenario: scenario.name,
    ...(scenario.source === undefined ? {} : { source: scenario.source }),
    nodes,
    storage,
    durationS,
    mode,
    targets,
    roles: keyRoles(planned, baseline.schema),
    candidates: evaluated,
    recommended,
    needsMoreNodes,
    losers: evaluated
      .filter((each) => each !== recommended)
      .map((each) => ({ name: each.candidate.name, reason: lossReason(each, recommended) })),
    decision: decisionTable(planned, asIs, evaluated),
    beyondTheKey: beyondTheKey(planned, asIs, recommended, targets),
  };
}
