// `keyspread migrate job` on the built bin: the golden definitions in examples/jobs/ (checked
// against the engines' schemas too), and what it refuses.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { load, loadAll } from "js-yaml";
import { Job } from "kubernetes-models/batch/v1/Job";
import { describe, expect, it } from "vitest";
import { UPDATE_GOLDEN } from "../../../test/golden.js";
import { CLOUD_RUN_V1, CLOUD_RUN_V2, fieldErrors } from "../../migrate/cloud-run-job-fields.fixture.js";

const keyspread = (...args: string[]) => {
  const result = spawnSync("node", ["dist/cli/main.js", ...args], {
    encoding: "utf8",
    env: { ...process.env, KEYSPREAD_BIGTABLE_PROJECT: "", KEYSPREAD_BIGTABLE_INSTANCE: "" },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};

const COMMON = [
  "--from",
  "bigtable:my-project/metrics/fleet",
  "--from-schema",
  "examples/schemas/fleet.yaml",
  "--to",
  "bigtable:my-project/metrics/fleet-salt64",
  "--to-schema",
  "examples/jobs/fleet-salt64.yaml",
  "--image",
  "us-docker.pkg.dev/my-project/tools/keyspread:1.0",
  "--tasks",
  "32",
  "--service-account",
  "keyspread-rekey@my-project.iam.gserviceaccount.com",
];
const GOLDEN: Record<string, string[]> = {
  "examples/jobs/kubernetes-backfill.job.yaml": [
    "--engine",
    "kubernetes",
    "--parallelism",
    "16",
    "--write-app-profile",
    "rekey-low-priority",
  ],
  "examples/jobs/cloud-run-backfill.job.yaml": [
    "--engine",
    "cloud-run",
    "--read-app-profile",
    "rekey-data-boost",
    "--write-app-profile",
    "rekey-low-priority",
  ],
  "examples/jobs/cloud-run-validate.job.yaml": [
    "--engine",
    "cloud-run",
    "--step",
    "validate",
    "--read-app-profile",
    "rekey-data-boost",
  ],
  "examples/jobs/cloud-run-backfill-v2.job.json": [
    "--engine",
    "cloud-run",
    "--api",
    "v2",
    "--read-app-profile",
    "rekey-data-boost",
  ],
};

describe("keyspread migrate job", () => {
  for (const [file, args] of Object.entries(GOLDEN)) {
    it(`writes ${file}`, () => {
      const run = keyspread("migrate", "job", ...COMMON, ...args);
      expect(run.code, run.stderr).toBe(0);
      if (UPDATE_GOLDEN) writeFileSync(file, run.stdout);
      // JSON is compared as data: the repository's formatter lays the file out its own way.
      if (file.endsWith(".json"))
        expect(JSON.parse(run.stdout)).toEqual(JSON.parse(readFileSync(file, "utf8")));
      else expect(run.stdout).toBe(readFileSync(file, "utf8"));
    });
  }

  it("the golden definitions pass the engines' schemas", () => {
    const kubernetes = loadAll(readFileSync("examples/jobs/kubernetes-backfill.job.yaml", "utf8")) as {
      kind: string;
    }[];
    const job = kubernetes.find((document) => document.kind === "Job")!;
    expect(() => new Job(job as never).validate()).not.toThrow();
    expect(job).toMatchObject({ spec: { completionMode: "Indexed", completions: 32, parallelism: 16 } });
    for (const file of [
      "examples/jobs/cloud-run-backfill.job.yaml",
      "examples/jobs/cloud-run-validate.job.yaml",
    ])
      expect(fieldErrors(CLOUD_RUN_V1, { object: "Job" }, load(readFileSync(file, "utf8")))).toEqual([]);
    const v2 = JSON.parse(readFileSync("examples/jobs/cloud-run-backfill-v2.job.json", "utf8"));
    expect(fieldErrors(CLOUD_RUN_V2, { object: "Job" }, v2)).toEqual([]);
  });

  it("refuses what no engine could run, naming the flag", () => {
    const refused = (args: string[], pattern: RegExp) => {
      const run = keyspread("migrate", "job", ...COMMON, ...args);
      expect(run.code, run.stdout).not.toBe(0);
      expect(run.stderr).toMatch(pattern);
    };
    refused(["--engine", "cloud-run", "--from", "embedded:old"], /--from embedded:old: .*embedded/);
    refused(
      ["--engine", "kubernetes", "--to", "bigtable:fleet-salt64"],
      /--to bigtable:fleet-salt64: name the project and instance/,
    );
    refused(["--engine", "cloud-run", "--timeout", "8d"], /--timeout 8d is longer than Cloud Run's 168h/);
    refused(["--engine", "kubernetes", "--parallelism", "64"], /--parallelism 64 is more than --tasks 32/);
    refused(["--engine", "kubernetes", "--name", "Fleet_Rekey"], /--name "Fleet_Rekey" must be lowercase/);
    refused(["--engine", "kubernetes", "--memory", "1G"], /--memory/);
    refused(["--engine", "batch"], /--engine "batch" is not one of cloud-run, kubernetes/);
    refused(["--engine", "kubernetes", "--to-schema", "examples/schemas/game-studio-md5.yaml"], /field/);
  });
});
