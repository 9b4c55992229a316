/** The diagnosis's scenario as a `scenario.yaml` that `lab --scenario`, `advise --scenario` and `replay` read. Pure. */
import { dump } from "js-yaml";
import type { Scenario } from "../../sim/scenario/scenario.js";

export function scenarioYaml(scenario: Scenario): string {
  return `# Written by \`keyspread diagnose\`: the table's key as sampled, as the current design.\n${dump(scenario, { noRefs: true, lineWidth: 120 })}`;
}
