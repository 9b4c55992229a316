/**
 * Every name the printers may emit, as the tools document them, for the tests that check the
 * printed plans against them.
 *
 * Terraform: hashicorp/terraform-provider-google at commit e03b7622a26cf4e878f90bdccaca6aa3d03a7999
 * (August 2026), website/docs/r/bigtable_instance.html.markdown, bigtable_table.html.markdown,
 * bigtable_gc_policy.html.markdown, bigtable_app_profile.html.markdown ("Argument Reference"),
 * checked against the schemas in google/services/bigtable/resource_bigtable_*.go at the same commit
 * (`multi_cluster_routing_cluster_ids` is in the schema and the page's examples).
 * https://registry.terraform.io/providers/hashicorp/google/latest/docs/resources/bigtable_instance
 *
 * gcloud: google-cloud-sdk-unofficial/google-cloud-sdk, lib/googlecloudsdk/command_lib/bigtable/arguments.py
 * at commit 1ec5a583e6dbc38a588122a2f228415082524f4e (--cluster-config keys, --route-any/--restrict-to/
 * --route-to/--transactional-writes, --priority, --data-boost, --data-boost-compute-billing-owner,
 * --autoscaling-*, --num-nodes), lib/googlecloudsdk/api_lib/bigtable/tables.py at
 * 01f043c2289dbd5b8de55d1d271ead804f9448f0 (--column-families rules maxage/maxversions, `||`), and the
 * reference pages https://cloud.google.com/sdk/gcloud/reference/bigtable/instances/create,
 * …/bigtable/instances/tables/create, …/bigtable/app-profiles/create, …/bigtable/clusters/create,
 * …/bigtable/clusters/update, …/bigtable/clusters/describe.
 */

/** Attributes and blocks by where they may appear: a resource type, or a block inside one. */
export const TERRAFORM_NAMES: Readonly<Record<string, readonly string[]>> = {
  terraform: ["required_providers"],
  "terraform.required_providers": ["google"],
  "terraform.required_providers.google": ["source"],
  variable: ["description", "type"],
  google_bigtable_instance: [
    "name",
    "cluster",
    "project",
    "instance_type",
    "display_name",
    "force_destroy",
    "deletion_protection",
    "labels",
    "deletion_policy",
    "tags",
    "edition",
  ],
  "google_bigtable_instance.cluster": [
    "cluster_id",
    "zone",
    "num_nodes",
    "autoscaling_config",
    "storage_type",
    "kms_key_name",
    "node_scaling_factor",
  ],
  "google_bigtable_instance.cluster.autoscaling_config": [
    "min_nodes",
    "max_nodes",
    "cpu_target",
    "storage_target",
  ],
  google_bigtable_table: [
    "name",
    "instance_name",
    "split_keys",
    "column_family",
    "project",
    "deletion_protection",
    "change_stream_retention",
    "automated_backup_policy",
  ],
  "google_bigtable_table.column_family": ["family", "type"],
  google_bigtable_gc_policy: [
    "table",
    "instance_name",
    "column_family",
    "project",
    "mode",
    "max_age",
    "max_version",
    "gc_rules",
    "deletion_policy",
    "ignore_warnings",
  ],
  google_bigtable_app_profile: [
    "app_profile_id",
    "description",
    "multi_cluster_routing_use_any",
    "multi_cluster_routing_cluster_ids",
    "row_affinity",
    "single_cluster_routing",
    "standard_isolation",
    "data_boost_isolation_read_only",
    "instance",
    "ignore_warnings",
    "project",
    "deletion_policy",
  ],
  "google_bigtable_app_profile.single_cluster_routing": ["cluster_id", "allow_transactional_writes"],
  "google_bigtable_app_profile.standard_isolation": ["priority"],
  "google_bigtable_app_profile.data_boost_isolation_read_only": ["compute_billing_owner"],
};

/** Values the provider's docs list for the enumerated attributes the printer sets. */
export const TERRAFORM_VALUES: Readonly<Record<string, readonly string[]>> = {
  storage_type: ["SSD", "HDD"],
  node_scaling_factor: ["NodeScalingFactor1X", "NodeScalingFactor2X"],
  priority: ["PRIORITY_LOW", "PRIORITY_MEDIUM", "PRIORITY_HIGH"],
  compute_billing_owner: ["HOST_PAYS"],
  deletion_policy: ["PREVENT", "ABANDON", "DELETE"],
};

/** gcloud commands and the flags each takes (global flags: --project). */
export const GCLOUD_FLAGS: Readonly<Record<string, readonly string[]>> = {
  "gcloud bigtable instances create": [
    "--project",
    "--display-name",
    "--cluster-config",
    "--cluster-storage-type",
    "--async",
  ],
  "gcloud bigtable clusters update": [
    "--project",
    "--instance",
    "--num-nodes",
    "--autoscaling-min-nodes",
    "--autoscaling-max-nodes",
    "--autoscaling-cpu-target",
    "--autoscaling-storage-target",
    "--disable-autoscaling",
    "--async",
  ],
  "gcloud bigtable clusters describe": ["--project", "--instance"],
  "gcloud bigtable clusters create": [
    "--project",
    "--instance",
    "--zone",
    "--node-scaling-factor",
    "--num-nodes",
    "--autoscaling-min-nodes",
    "--autoscaling-max-nodes",
    "--autoscaling-cpu-target",
    "--autoscaling-storage-target",
    "--kms-key",
    "--async",
  ],
  "gcloud bigtable instances tables create": [
    "--project",
    "--instance",
    "--column-families",
    "--splits",
    "--deletion-protection",
    "--change-stream-retention-period",
  ],
  "gcloud bigtable app-profiles create": [
    "--project",
    "--instance",
    "--description",
    "--route-any",
    "--restrict-to",
    "--row-affinity",
    "--route-to",
    "--transactional-writes",
    "--priority",
    "--standard",
    "--data-boost",
    "--data-boost-compute-billing-owner",
    "--force",
  ],
};

/** The keys --cluster-config takes (arguments.py, AddClusterConfig). */
export const CLUSTER_CONFIG_KEYS = [
  "id",
  "zone",
  "nodes",
  "node-scaling-factor",
  "kms-key",
  "autoscaling-min-nodes",
  "autoscaling-max-nodes",
  "autoscaling-cpu-target",
  "autoscaling-storage-target",
] as const;
