/** The verdict as something to apply: the instance plan and its Terraform and gcloud printers. */
export { InstancePlanError } from "./bigtable-ids.js";
export { instancePlanToGcloud } from "./gcloud.js";
export {
  type InstancePlan,
  type InstancePlanOptions,
  instancePlan,
  type NodeScalingFactor,
  type PlanAppProfile,
  type PlanAutoscaling,
  type PlanCluster,
  type PlanGcPolicy,
  type PlanIsolation,
  type PlanRouting,
  type PlanSource,
  type PlanTable,
} from "./instance-plan.js";
export { planSource } from "./plan-source.js";
export { instancePlanToTerraform } from "./terraform.js";
