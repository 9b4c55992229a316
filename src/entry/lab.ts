/**
 * `keyspread/lab`: the hotspot lab — the cluster simulator, heatmaps of simulations and access
 * logs, the key-design advisor, the lab's judgement of a scenario's designs, and the recommended
 * instance as Terraform and gcloud commands.
 */
export * from "../advise/index.js";
export * from "../apply/index.js";
export {
  type JudgeScenarioOptions,
  type JudgeScenarioProgress,
  judgeScenario,
  type LabVerdict,
} from "../lab/judge.js";
export { SimulationMemo, type SimulationMemoStats } from "../lab/simulation-memo.js";
export * from "../sim/index.js";
export * from "../viz/index.js";
