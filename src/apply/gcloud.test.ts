import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectGolden } from "../../test/golden.js";
import { CLUSTER_CONFIG_KEYS, GCLOUD_FLAGS } from "./documented-names.fixture.js";
import { instancePlanToGcloud, shellWord } from "./gcloud.js";
import { instancePlan } from "./instance-plan.js";
import { goldenPlans, salted2xBoostSource } from "./plan-sources.fixture.js";

/** The words of one shell command line (single and double quotes; no expansions needed here). */
function words(line: string): string[] {
  const out: string[] = [];
  let word = "";
  let quote: string | undefined;
  let started = false;
  for (const char of line) {
    if (quote) {
      if (char === quote) quote = undefined;
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      started = true;
    } else if (char === " ") {
      if (started || word) out.push(word);
      word = "";
      started = false;
    } else word += char;
  }
  if (started || word) out.push(word);
  return out;
}

/** Each gcloud command of the script: continuation lines joined, the command's words. */
function gcloudCommands(script: string): string[][] {
  return script
    .replace(/ \\\n\s*/g, " ")
    .split("\n")
    .map((line) => line.replace(/^\s*(if |else |then )?/, "").trim())
    .filter((line) => line.startsWith("gcloud "))
    .map((line) => words(line.replace(/ >\/dev\/null 2>&1; then$/, "")));
}

describe("instancePlanToGcloud", () => {
  it("prints the golden files (KEYSPREAD_UPDATE_GOLDEN=1 rewrites them)", () => {
    for (const [name, plan] of goldenPlans())
      expectGolden(import.meta.url, `${name}.gcloud.sh`, instancePlanToGcloud(plan));
  });

  it("is a bash script bash can parse", () => {
    const directory = mkdtempSync(join(tmpdir(), "keyspread-gcloud-"));
    try {
      for (const [name, plan] of goldenPlans()) {
        const file = join(directory, `${name}.sh`);
        writeFileSync(file, instancePlanToGcloud(plan));
        const check = spawnSync("bash", ["-n", file], { encoding: "utf8" });
        expect(check.status, check.stderr).toBe(0);
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("uses only commands, flags and --cluster-config keys gcloud defines (cited in documented-names.fixture.ts)", () => {
    const seen = new Set<string>();
    for (const [, plan] of goldenPlans()) {
      for (const command of gcloudCommands(instancePlanToGcloud(plan))) {
        const name = Object.keys(GCLOUD_FLAGS).find((each) => command.join(" ").startsWith(`${each} `));
        expect(name, command.join(" ")).toBeDefined();
        seen.add(name!);
        for (const word of command.filter((each) => each.startsWith("--"))) {
          const flag = word.split("=")[0]!;
          expect(GCLOUD_FLAGS[name!], `${name} ${flag}`).toContain(flag);
          if (flag === "--cluster-config")
            for (const pair of word.slice("--cluster-config=".length).split(","))
              expect(CLUSTER_CONFIG_KEYS).toContain(pair.split("=")[0]);
        }
      }
    }
    // The fleet's table exists: its clusters are resized or added, never re-created.
    expect([...seen].sort()).toEqual([
      "gcloud bigtable app-profiles create",
      "gcloud bigtable clusters create",
      "gcloud bigtable clusters describe",
      "gcloud bigtable clusters update",
      "gcloud bigtable instances create",
      "gcloud bigtable instances tables create",
    ]);
  });

  it("--splits holds the keys, with gcloud's alternate delimiter when a key holds a comma", () => {
    const plan = instancePlan(salted2xBoostSource());
    const splitsOf = (keys: string[]) => {
      const script = instancePlanToGcloud({
        ...plan,
        table: { ...plan.table, splitKeys: keys.map((key) => Buffer.from(key)) },
      });
      return gcloudCommands(script)
        .flat()
        .find((word) => word.startsWith("--splits="));
    };
    expect(splitsOf(["a", "b c"])).toBe("--splits=a,b c");
    expect(splitsOf(["a,1", "b"])).toBe("--splits=^;^a,1;b");
    expect(splitsOf(["\u0001"])).toBeUndefined();
    expect(shellWord("it's")).toBe("'it'\\''s'");
  });
});
