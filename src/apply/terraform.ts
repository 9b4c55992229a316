/**
 * An instance plan as Terraform (HCL) for the hashicorp/google provider: google_bigtable_instance
 * with its clusters, google_bigtable_table with the split keys, google_bigtable_gc_policy for the
 * retention, google_bigtable_app_profile per path. Attribute names as the provider documents them
 * (hashicorp/terraform-provider-google, website/docs/r/bigtable_instance, bigtable_table,
 * bigtable_gc_policy and bigtable_app_profile .html.markdown at commit
 * e03b7622a26cf4e878f90bdccaca6aa3d03a7999, August 2026); terraform.test.ts checks every attribute
 * printed against that list. Pure: plan in, text out.
 */
import type { InstancePlan, PlanAppProfile, PlanCluster } from "./instance-plan.js";

/** A Terraform string literal: JSON's escapes, and interpolation sequences taken literally. */
export function hclString(text: string): string {
  return JSON.stringify(text)
    .replace(/\$\{/g, () => "$${")
    .replace(/%\{/g, () => "%%{");
}

/** The key as text when it is UTF-8 (Terraform's split_keys are strings); undefined when it is not. */
export function textKey(key: Buffer): string | undefined {
  const text = key.toString("utf8");
  return Buffer.from(text, "utf8").equals(key) ? text : undefined;
}

/** A resource name from an id: Terraform identifiers start with a letter or underscore. */
const resourceName = (id: string) => (/^[A-Za-z_]/.test(id) ? id : `_${id}`).replace(/[^A-Za-z0-9_-]/g, "_");

/** `name = value` lines with the `=` aligned, as `terraform fmt` writes them. */
function attributes(indent: string, pairs: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...pairs.map(([name]) => name.length));
  return pairs.map(([name, value]) => `${indent}${name.padEnd(width)} = ${value}`);
}

/** Go duration text for the provider's gc_rules: whole hours when they are. */
const goDuration = (seconds: number) => (seconds % 3600 === 0 ? `${seconds / 3600}h` : `${seconds}s`);

function clusterBlock(cluster: PlanCluster): string[] {
  const zone = `${hclString(cluster.zone)}${cluster.zoneAssumed ? " # assumed: check Bigtable serves this zone, or pass --zone" : ""}`;
  const scaling = cluster.autoscaling;
  return [
    "  cluster {",
    ...attributes("    ", [
      ["cluster_id", hclString(cluster.id)],
      ["zone", zone],
      ["storage_type", hclString(cluster.storageType)],
      ["node_scaling_factor", hclString(`NodeScalingFactor${cluster.nodeScalingFactor}X`)],
      ...(scaling ? [] : [["num_nodes", String(cluster.nodes)] as const]),
    ]),
    ...(scaling
      ? [
          "",
          "    autoscaling_config {",
          ...attributes("      ", [
            ["min_nodes", String(scaling.minNodes)],
            ["max_nodes", String(scaling.maxNodes)],
            ["cpu_target", String(scaling.cpuTargetPercent)],
            ["storage_target", String(scaling.storageTargetGiBPerNode)],
          ]),
          "    }",
        ]
      : []),
    "  }",
  ];
}

function appProfileResource(profile: PlanAppProfile, instance: string): string[] {
  const { routing, isolation } = profile;
  return [
    `resource "google_bigtable_app_profile" ${hclString(resourceName(profile.id))} {`,
    ...attributes("  ", [
      ["project", "var.project"],
      ["instance", `${instance}.name`],
      ["app_profile_id", hclString(profile.id)],
      ["description", hclString(`keyspread: ${profile.paths.join(", ")}`)],
      ...(routing.kind === "multi-cluster"
        ? [
            ["multi_cluster_routing_use_any", "true"] as const,
            ...(routing.clusterIds.length > 0
              ? [
                  [
                    "multi_cluster_routing_cluster_ids",
                    `[${routing.clusterIds.map(hclString).join(", ")}]`,
                  ] as const,
                ]
              : []),
          ]
        : []),
    ]),
    ...(routing.kind === "single-cluster"
      ? [
          "",
          "  single_cluster_routing {",
          ...attributes("    ", [
            ["cluster_id", hclString(routing.clusterId)],
            ["allow_transactional_writes", String(routing.transactionalWrites)],
          ]),
          "  }",
        ]
      : []),
    "",
    ...(isolation.kind === "standard"
      ? ["  standard_isolation {", `    priority = ${hclString(isolation.priority)}`, "  }"]
      : ["  data_boost_isolation_read_only {", `    compute_billing_owner = "HOST_PAYS"`, "  }"]),
    "}",
  ];
}

export function instancePlanToTerraform(plan: InstancePlan): string {
  const instance = "google_bigtable_instance.instance";
  const { table, gcPolicy } = plan;
  const keys = table.splitKeys.map(textKey);
  const splitKeys = keys.every((key): key is string => key !== undefined) ? keys : undefined;
  const gcRules = JSON.stringify(
    gcPolicy.maxAgeS === undefined
      ? { rules: [{ max_version: gcPolicy.maxVersions }] }
      : {
          mode: "union",
          rules: [{ max_age: goDuration(gcPolicy.maxAgeS) }, { max_version: gcPolicy.maxVersions }],
        },
    null,
    2,
  );
  const lines = [
    `# The instance keyspread recommends for ${plan.scenario}: design ${plan.design}. Generated: review before`,
    "# `terraform plan`/`apply` (docs/apply.md says what was and was not exercised).",
    ...plan.notes.map((note) => `# - ${note}`),
    ...(table.exists
      ? [
          "# The table exists: import what exists before applying, e.g.",
          `#   terraform import ${instance} projects/PROJECT/instances/${plan.instanceId}`,
          `#   terraform import google_bigtable_table.table projects/PROJECT/instances/${plan.instanceId}/tables/${table.id}`,
        ]
      : []),
    "",
    "terraform {",
    "  required_providers {",
    "    google = {",
    '      source = "hashicorp/google"',
    "    }",
    "  }",
    "}",
    "",
    'variable "project" {',
    '  description = "The Google Cloud project the instance belongs to."',
    "  type        = string",
    "}",
    "",
    'resource "google_bigtable_instance" "instance" {',
    ...attributes("  ", [
      ["project", "var.project"],
      ["name", hclString(plan.instanceId)],
      ["display_name", hclString(plan.displayName)],
      ["deletion_protection", "true"],
    ]),
    ...plan.clusters.flatMap((cluster) => ["", ...clusterBlock(cluster)]),
    "}",
    "",
    'resource "google_bigtable_table" "table" {',
    ...attributes("  ", [
      ["project", "var.project"],
      ["name", hclString(table.id)],
      ["instance_name", `${instance}.name`],
      ["deletion_protection", hclString("PROTECTED")],
      ...(splitKeys && splitKeys.length > 0 && !table.exists
        ? [["split_keys", `[${splitKeys.map((key) => hclString(key)).join(", ")}]`] as const]
        : []),
    ]),
    ...(splitKeys === undefined
      ? [
          `  # ${table.splitKeys.length} split keys are not UTF-8 text: create the table with`,
          "  # `keyspread table create --store bigtable`, which pre-splits it at the salt's buckets.",
        ]
      : []),
    "",
    "  column_family {",
    `    family = ${hclString(table.family)}`,
    "  }",
    "}",
    "",
    'resource "google_bigtable_gc_policy" "retention" {',
    ...attributes("  ", [
      ["project", "var.project"],
      ["instance_name", `${instance}.name`],
      ["table", "google_bigtable_table.table.name"],
      ["column_family", hclString(gcPolicy.family)],
      // A replicated table's GC policy cannot be deleted (the provider's docs): leave it on destroy.
      ["deletion_policy", hclString("ABANDON")],
      ["gc_rules", "<<-EOF"],
    ]),
    ...gcRules.split("\n").map((line) => `  ${line}`),
    "  EOF",
    "}",
    ...plan.appProfiles.flatMap((profile) => ["", ...appProfileResource(profile, instance)]),
  ];
  return `${lines.join("\n")}\n`;
}
