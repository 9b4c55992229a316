/**
 * `keyspread/lab`: the hotspot lab — the cluster simulator, heatmaps of simulations and access
 * logs, the key-design advisor, and the lab's judgement of a scenario's designs.
 */
export * from "../advise/index.js";
export {
  type JudgeScenarioOptions,
  type JudgeScenarioProgress,
  judgeScenario,
  type LabVerdict,
} from "../lab/judge.js";
export * from "../sim/index.js";
export * from "../viz/index.js";
