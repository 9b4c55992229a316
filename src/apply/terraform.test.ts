import { describe, expect, it } from "vitest";
import { expectGolden } from "../../test/golden.js";
import { TERRAFORM_NAMES, TERRAFORM_VALUES } from "./documented-names.fixture.js";
import { instancePlan } from "./instance-plan.js";
import { fleetSource, goldenPlans, salted2xBoostSource } from "./plan-sources.fixture.js";
import { hclString, instancePlanToTerraform } from "./terraform.js";

interface Use {
  path: string;
  name: string;
  value?: string;
}

/**
 * Every attribute and block the HCL uses, with where it is (resource type and enclosing blocks):
 * string contents, comments and heredoc bodies left out. Throws on an unbalanced brace.
 */
function hclNames(hcl: string): { uses: Use[]; resources: string[] } {
  const uses: Use[] = [];
  const resources: string[] = [];
  const stack: string[] = [];
  let heredoc: string | undefined;
  for (const raw of hcl.split("\n")) {
    if (heredoc !== undefined) {
      if (raw.trim() === heredoc) heredoc = undefined;
      continue;
    }
    const value = /=\s*"((?:[^"\\]|\\.)*)"/.exec(raw)?.[1];
    const line = raw
      .replace(/"(?:[^"\\]|\\.)*"/g, '""')
      .replace(/#.*$/, "")
      .trim();
    if (line === "") continue;
    const path = stack.join(".");
    const resource = /^resource "([^"]+)" "[^"]+" \{$/.exec(raw.trim());
    const topBlock = /^(terraform|variable)(?: "")? \{$/.exec(line);
    const block = /^(\w+)(?: =)? \{$/.exec(line);
    const attribute = /^(\w+) += (.*)$/.exec(line);
    if (resource) {
      resources.push(resource[1]!);
      stack.push(resource[1]!);
    } else if (topBlock) stack.push(topBlock[1]!);
    else if (block) {
      uses.push({ path, name: block[1]! });
      stack.push(block[1]!);
    } else if (attribute) {
      uses.push({ path, name: attribute[1]!, ...(value === undefined ? {} : { value }) });
      heredoc = /^<<-?(\w+)$/.exec(attribute[2]!)?.[1];
    } else if (line === "}") {
      if (stack.pop() === undefined) throw new Error("unbalanced }");
    } else throw new Error(`unparsed HCL line: ${raw}`);
  }
  if (stack.length > 0 || heredoc !== undefined)
    throw new Error(`unclosed: ${stack.join(".")} ${heredoc ?? ""}`);
  return { uses, resources };
}

describe("instancePlanToTerraform", () => {
  it("prints the golden files (KEYSPREAD_UPDATE_GOLDEN=1 rewrites them)", () => {
    for (const [name, plan] of goldenPlans())
      expectGolden(import.meta.url, `${name}.main.tf`, instancePlanToTerraform(plan));
  });

  it("uses only attributes and values the provider documents (cited in documented-names.fixture.ts)", () => {
    for (const [, plan] of goldenPlans()) {
      const { uses, resources } = hclNames(instancePlanToTerraform(plan));
      expect(new Set(resources)).toEqual(
        new Set([
          "google_bigtable_instance",
          "google_bigtable_table",
          "google_bigtable_gc_policy",
          "google_bigtable_app_profile",
        ]),
      );
      for (const use of uses) {
        expect(TERRAFORM_NAMES[use.path], `${use.path}.${use.name}`).toContain(use.name);
        const allowed = TERRAFORM_VALUES[use.name];
        if (allowed && use.value !== undefined)
          expect(allowed, `${use.path}.${use.name}`).toContain(use.value);
      }
    }
  });

  it("every cluster has num_nodes or autoscaling_config, never both", () => {
    for (const [, plan] of goldenPlans()) {
      const clusters = instancePlanToTerraform(plan).split("  cluster {").slice(1);
      expect(clusters).toHaveLength(plan.clusters.length);
      for (const block of clusters) {
        const body = block.slice(0, block.indexOf("\n  }"));
        expect(body.includes("num_nodes") !== body.includes("autoscaling_config")).toBe(true);
      }
    }
  });

  it("split keys round-trip as Terraform strings; interpolation is taken literally; binary keys are not printed", () => {
    const plan = instancePlan(salted2xBoostSource());
    const withKeys = (keys: Buffer[]) =>
      instancePlanToTerraform({ ...plan, table: { ...plan.table, splitKeys: keys } });
    const listed = /split_keys +?= (\[.*\])/.exec(withKeys(plan.table.splitKeys))![1]!;
    expect(JSON.parse(listed).map((key: string) => Buffer.from(key))).toEqual(plan.table.splitKeys);
    const interpolation = ["a", "$", "{b}%", "{c}"].join("");
    expect(hclString(interpolation)).toBe(JSON.stringify(["a", "$$", "{b}%%", "{c}"].join("")));
    const binary = withKeys([Buffer.from([0x01]), Buffer.from([0xff, 0x00])]);
    expect(binary).not.toMatch(/split_keys/);
    expectGolden(import.meta.url, "binary-split-keys.tf", binary);
  });

  it("gc_rules holds the retention as the store's rule: the union of max age and one version", () => {
    const hcl = instancePlanToTerraform(instancePlan(fleetSource()));
    const json = hcl.slice(hcl.indexOf("<<-EOF") + 6, hcl.indexOf("  EOF"));
    expect(JSON.parse(json)).toEqual({ mode: "union", rules: [{ max_age: "720h" }, { max_version: 1 }] });
  });
});
