/**
 * The names Bigtable accepts for what an instance plan creates, checked before anything is printed:
 * a name Bigtable rejects fails here, naming the field it came from, not at `terraform apply`.
 *
 * Rules: Terraform provider for Google, website/docs/r/bigtable_instance.html.markdown (instance
 * `name` "6-33 characters … hyphens, lowercase letters and numbers"; `cluster_id` "6-30 characters",
 * the same letters), bigtable_table.html.markdown (table `name` "1-50 characters … hyphens,
 * underscores, periods, letters and numbers"), bigtable_app_profile.html.markdown (`app_profile_id`
 * "`[_a-zA-Z0-9][-_.a-zA-Z0-9]*`"); the admin API's resource names start an instance or cluster id
 * with a letter (`[a-z][-a-z0-9]*`, https://cloud.google.com/bigtable/docs/reference/admin/rest/v2/projects.instances.clusters).
 */

/** A plan Bigtable would refuse: `field` names where the value came from (a scenario field or a CLI option). */
export class InstancePlanError extends Error {
  override readonly name = "InstancePlanError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

interface IdRule {
  what: string;
  pattern: RegExp;
  allowed: string;
}

const INSTANCE_ID: IdRule = {
  what: "instance id",
  pattern: /^[a-z][a-z0-9-]{4,31}[a-z0-9]$/,
  allowed:
    "6-33 characters: lowercase letters, digits and hyphens, starting with a letter, not ending with a hyphen",
};
const CLUSTER_ID: IdRule = {
  what: "cluster id",
  pattern: /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/,
  allowed:
    "6-30 characters: lowercase letters, digits and hyphens, starting with a letter, not ending with a hyphen",
};
const TABLE_ID: IdRule = {
  what: "table id",
  pattern: /^[_a-zA-Z0-9][-_.a-zA-Z0-9]{0,49}$/,
  allowed: "1-50 characters: letters, digits, _ - and ., not starting with - or .",
};
const APP_PROFILE_ID: IdRule = {
  what: "app profile id",
  pattern: /^[_a-zA-Z0-9][-_.a-zA-Z0-9]*$/,
  allowed: "letters, digits, _ - and ., not starting with - or .",
};
const FAMILY: IdRule = {
  what: "column family",
  pattern: /^[-_a-zA-Z0-9]{1,64}$/,
  allowed: "1-64 characters: letters, digits, _ and -",
};
/** A Compute Engine zone: region and a letter (`us-east1-b`). */
const ZONE: IdRule = {
  what: "zone",
  pattern: /^[a-z]+(-[a-z]+)+\d+-[a-z]$/,
  allowed: "a zone such as us-east1-b (https://cloud.google.com/bigtable/docs/locations)",
};

function check(rule: IdRule, field: string, value: string): string {
  if (!rule.pattern.test(value))
    throw new InstancePlanError(
      field,
      `${JSON.stringify(value)} is not a Bigtable ${rule.what}; allowed: ${rule.allowed}`,
    );
  return value;
}

export const checkInstanceId = (field: string, value: string) => check(INSTANCE_ID, field, value);
export const checkClusterId = (field: string, value: string) => check(CLUSTER_ID, field, value);
export const checkTableId = (field: string, value: string) => check(TABLE_ID, field, value);
export const checkAppProfileId = (field: string, value: string) => check(APP_PROFILE_ID, field, value);
export const checkFamily = (field: string, value: string) => check(FAMILY, field, value);
export const checkZone = (field: string, value: string) => check(ZONE, field, value);

/**
 * An instance id from a scenario's name: lowercase, other characters as hyphens, starting with a
 * letter, cut to 33, padded to 6 — a default the user can read back to the scenario.
 */
export function instanceIdFor(scenarioName: string): string {
  const slug = scenarioName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^[^a-z]+/, "")
    .slice(0, 33)
    .replace(/-+$/, "");
  return slug.length >= 6 ? slug : `${slug || "keyspread"}-instance`.replace(/^-/, "");
}

/**
 * A table id from a schema's name (generated candidates' names hold `+`): other characters as
 * `_`, not starting with `-` or `.`, cut to 50.
 */
export function tableIdFor(schemaName: string): string {
  const id = schemaName
    .replace(/[^-_.a-zA-Z0-9]+/g, "_")
    .replace(/^[-.]+/, "")
    .slice(0, 50);
  return checkTableId("table id", id === "" ? "keyspread" : id);
}
