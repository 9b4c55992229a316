/**
 * What an instance plan is built from, read off the advisor's verdict: the recommended design with
 * its schema as the real key holds it, the nodes the verdict gives it, the autoscaled range of a cyclic load, and each replica's nodes. Undefined without a
 * recommendation (nothing to apply).
 */
import type { Advice } from "../advise/judge/advise.js";
import { realSchema } from "../advise/report/schema-file.js";
import { verdictHeadline } from "../advise/report/verdict-headline.js";
import type { Scenario } from "../sim/scenario/scenario.js";
import type { PlanSource } from "./instance-plan.js";

export function planSource(advice: Advice, scenario: Scenario): PlanSource | undefined {
  const chosen = advice.recommended;
  const headline = verdictHeadline(advice).recommended;
  if (!chosen || !headline) return undefined;
  const autoscaled = chosen.autoscaled;
  return {
    scenario,
    design: chosen.candidate.design,
    schema: realSchema(advice, chosen),
    storage: advice.storage,
    nodes: headline.nodes,
    ...(autoscaled
      ? {
          autoscaled: {
            minNodes: autoscaled.minNodes,
            maxNodes: autoscaled.maxNodes,
            cpuTarget: autoscaled.cpuTarget,
            followsPeak: autoscaled.followsPeak,
          },
        }
      : {}),
    ...(advice.multiCluster
      ? {
          replicas: advice.multiCluster.clusters.map((plan) => ({
            name: plan.cluster,
            region: plan.region,
            nodes: plan.nodes,
          })),
        }
      : {}),
  };
}
