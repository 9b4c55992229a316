/**
 * The recommended instance as files to review and apply, for `lab` and `advise --out`: main.tf
 * (Terraform) and gcloud.sh beside advice.json, or one of them on stdout (`--emit`). The options
 * that name the instance are checked as they are parsed, before any simulation.
 */
import { chmod } from "node:fs/promises";
import { join } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import type { Advice } from "../../advise/judge/advise.js";
import { checkInstanceId, checkZone, InstancePlanError } from "../../apply/bigtable-ids.js";
import { instancePlanToGcloud } from "../../apply/gcloud.js";
import { type InstancePlan, type InstancePlanOptions, instancePlan } from "../../apply/instance-plan.js";
import { planSource } from "../../apply/plan-source.js";
import { instancePlanToTerraform } from "../../apply/terraform.js";
import { writeFileAtomically } from "../../io/write-file-atomically.js";
import type { Scenario } from "../../sim/scenario/scenario.js";

export type EmitFormat = "terraform" | "gcloud";

export interface ApplyCliOptions {
  instanceId?: string;
  zone?: string | Record<string, string>;
  emit?: EmitFormat;
}

/** The file each format is written to. */
export const APPLY_FILES: Record<EmitFormat, string> = { terraform: "main.tf", gcloud: "gcloud.sh" };

const argument =
  <T>(parse: (text: string) => T) =>
  (text: string): T => {
    try {
      return parse(text);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };

/** `us-east1-b`, or `cluster=zone,…` for each cluster of a replicated scenario. */
export function parseZones(text: string): string | Record<string, string> {
  if (!text.includes("=")) return checkZone("--zone", text);
  return Object.fromEntries(
    text.split(",").map((pair) => {
      const [cluster, zone, extra] = pair.split("=");
      if (!cluster || zone === undefined || extra !== undefined)
        throw new InstancePlanError("--zone", `"${pair}" is not cluster=zone`);
      return [cluster, checkZone(`--zone ${cluster}`, zone)];
    }),
  );
}

/** The options `lab` and `advise` share for the instance they write. */
export function withApplyOptions(command: Command): Command {
  return command
    .option(
      "--instance-id <id>",
      "the Bigtable instance main.tf and gcloud.sh create or resize (default: from the scenario's name)",
      argument((text) => checkInstanceId("--instance-id", text)),
    )
    .option(
      "--zone <zone>",
      "the cluster's zone, or cluster=zone,… per cluster with replication (default: us-central1-b, or each region's b, c, d zone)",
      argument(parseZones),
    )
    .addOption(
      new Option(
        "--emit <format>",
        "print the recommended instance as Terraform or gcloud commands on stdout instead of the report",
      ).choices(["terraform", "gcloud"]),
    );
}

/** The plan of the recommendation; undefined without one. Throws InstancePlanError for names Bigtable rejects. */
export function applyPlan(
  advice: Advice,
  scenario: Scenario,
  options: ApplyCliOptions,
): InstancePlan | undefined {
  const source = planSource(advice, scenario);
  if (!source) return undefined;
  const planOptions: InstancePlanOptions = {
    ...(options.instanceId === undefined ? {} : { instanceId: options.instanceId }),
    ...(options.zone === undefined ? {} : { zones: options.zone }),
  };
  return instancePlan(source, planOptions);
}

export const applyText = (plan: InstancePlan, format: EmitFormat): string =>
  format === "terraform" ? instancePlanToTerraform(plan) : instancePlanToGcloud(plan);

/**
 * Writes main.tf and gcloud.sh (executable) into `out`; returns the paths written. Without a
 * recommendation, or when a name the scenario gives is one Bigtable rejects, writes neither and
 * says why on stderr: the reports are still the run's answer.
 */
export async function writeApplyFiles(
  advice: Advice,
  scenario: Scenario,
  out: string,
  options: ApplyCliOptions,
): Promise<string[]> {
  let plan: InstancePlan | undefined;
  try {
    plan = applyPlan(advice, scenario, options);
  } catch (error) {
    if (!(error instanceof InstancePlanError)) throw error;
    process.stderr.write(`keyspread: main.tf and gcloud.sh not written: ${error.message}\n`);
    return [];
  }
  if (!plan) return [];
  const written: string[] = [];
  for (const format of ["terraform", "gcloud"] as const) {
    const path = join(out, APPLY_FILES[format]);
    await writeFileAtomically(path, applyText(plan, format));
    written.push(path);
  }
  await chmod(join(out, APPLY_FILES.gcloud), 0o755);
  return written;
}

/** Prints the plan in `format` on stdout; exits 2 (nothing to apply) without a recommendation. */
export function emitPlan(
  advice: Advice,
  scenario: Scenario,
  options: ApplyCliOptions & { emit: EmitFormat },
): void {
  const plan = applyPlan(advice, scenario, options);
  if (!plan) {
    process.stderr.write("keyspread: no design is recommended: nothing to apply\n");
    process.exitCode = 2;
    return;
  }
  process.stdout.write(applyText(plan, options.emit));
}
