import { dump as dumpYaml, load, loadAll } from "js-yaml";
import { Job } from "kubernetes-models/batch/v1/Job";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { ServiceAccount } from "kubernetes-models/v1/ServiceAccount";
import { describe, expect, it } from "vitest";
import { CLOUD_RUN_V1, CLOUD_RUN_V2, fieldErrors } from "./cloud-run-job-fields.fixture.js";
import {
  cloudRunJob,
  cloudRunJobV2,
  heapMiB,
  type JobDefinitionInput,
  jobDefinitionText,
  kubernetesJob,
  SCHEMA_DIR,
  taskArguments,
} from "./job-definition.js";

const input: JobDefinitionInput = {
  step: "backfill",
  name: "keyspread-backfill-fleet-v2",
  image: "us-docker.pkg.dev/proj/tools/keyspread:1",
  command: ["keyspread"],
  from: "bigtable:proj/inst/fleet",
  to: "bigtable:proj/inst/fleet-v2",
  fromSchema: { extension: ".yaml", text: "version: 1\n" },
  toSchema: { extension: ".json", text: "{}\n" },
  tasks: 16,
  parallelism: 8,
  retries: 3,
  shards: 128,
  readAppProfile: "boost",
  writeAppProfile: "low",
  rate: 5000,
  serviceAccount: "rekey@proj.iam.gserviceaccount.com",
  cpu: "1",
  memory: "1Gi",
  timeoutS: 86_400,
};

const tables = {
  from: { table: "fleet", instance: "inst", project: "proj" },
  to: { table: "fleet-v2", instance: "inst", project: "proj" },
};
const schemaFiles = { from: "old.yaml", to: "new.json" };
const dump = (document: unknown) => dumpYaml(document, { lineWidth: -1, noRefs: true });

describe("the task's command line", () => {
  it("is exactly the backfill/validate contract, every optional flag only when given", () => {
    expect(taskArguments(input, { from: "/a.yaml", to: "/b.json" })).toEqual([
      "migrate",
      "backfill",
      "--from",
      "bigtable:proj/inst/fleet",
      "--from-schema",
      "/a.yaml",
      "--to",
      "bigtable:proj/inst/fleet-v2",
      "--to-schema",
      "/b.json",
      "--tasks",
      "16",
      "--shards",
      "128",
      "--read-app-profile",
      "boost",
      "--write-app-profile",
      "low",
      "--rate",
      "5000",
    ]);
    const bare: JobDefinitionInput = { ...input, step: "validate" };
    delete bare.shards;
    delete bare.readAppProfile;
    delete bare.writeAppProfile;
    delete bare.rate;
    expect(taskArguments(bare, { from: "/a", to: "/b" })).toEqual([
      "migrate",
      "validate",
      "--from",
      "bigtable:proj/inst/fleet",
      "--from-schema",
      "/a",
      "--to",
      "bigtable:proj/inst/fleet-v2",
      "--to-schema",
      "/b",
      "--tasks",
      "16",
    ]);
  });

  it("gives Node three quarters of the memory limit, and refuses a quantity it cannot read", () => {
    expect(heapMiB("1Gi")).toBe(768);
    expect(heapMiB("512Mi")).toBe(384);
    expect(() => heapMiB("1G")).toThrow(/--memory/);
  });
});

describe("Kubernetes: an Indexed Job", () => {
  const [serviceAccount, configMap, job] = kubernetesJob(input);

  it("validates against Kubernetes' OpenAPI schema (kubernetes-models)", () => {
    expect(() => new ServiceAccount(serviceAccount as never).validate()).not.toThrow();
    expect(() => new ConfigMap(configMap as never).validate()).not.toThrow();
    expect(() => new Job(job as never).validate()).not.toThrow();
    // The check has teeth: a count as text is refused.
    const broken = structuredClone(job) as { spec: { completions: unknown } };
    broken.spec.completions = "16";
    expect(() => new Job(broken as never).validate()).toThrow(/completions/);
  });

  it("runs --tasks indexed completions, each index retried on its own, with the schemas mounted", () => {
    const spec = (job as { spec: Record<string, unknown> }).spec as {
      completionMode: string;
      completions: number;
      parallelism: number;
      backoffLimitPerIndex: number;
      template: {
        spec: {
          restartPolicy: string;
          serviceAccountName: string;
          containers: { args: string[]; env: { name: string }[]; resources: unknown }[];
        };
      };
    };
    expect(spec).toMatchObject({
      completionMode: "Indexed",
      completions: 16,
      parallelism: 8,
      backoffLimitPerIndex: 3,
    });
    expect(spec.template.spec.restartPolicy).toBe("Never");
    expect(spec.template.spec.serviceAccountName).toBe(input.name);
    const container = spec.template.spec.containers[0]!;
    expect(container.args).toEqual(
      taskArguments(input, { from: `${SCHEMA_DIR}/from-schema.yaml`, to: `${SCHEMA_DIR}/to-schema.json` }),
    );
    // Kubernetes sets JOB_COMPLETION_INDEX itself; the definition never does.
    expect(container.env.map((each) => each.name)).not.toContain("JOB_COMPLETION_INDEX");
    expect(container.resources).toEqual({ requests: { cpu: "1", memory: "1Gi" }, limits: { memory: "1Gi" } });
    expect((configMap as { data: Record<string, string> }).data).toEqual({
      "from-schema.yaml": "version: 1\n",
      "to-schema.json": "{}\n",
    });
    expect(serviceAccount).toMatchObject({
      metadata: { annotations: { "iam.gke.io/gcp-service-account": input.serviceAccount } },
    });
  });

  it("is one multi-document YAML file kubectl applies, with the IAM grants in its comments", () => {
    const text = jobDefinitionText(input, "kubernetes", {
      api: "v1",
      region: "us-central1",
      tables,
      schemaFiles,
      dump,
    });
    const documents = loadAll(text) as unknown[];
    expect(documents.map((each) => (each as { kind: string }).kind)).toEqual([
      "ServiceAccount",
      "ConfigMap",
      "Job",
    ]);
    expect(text).toMatch(/--role=roles\/bigtable\.reader/);
    expect(text).toMatch(/--role=roles\/bigtable\.user/);
  });
});

describe("Cloud Run", () => {
  it("v1, the YAML gcloud run jobs replace takes: only documented fields, of their documented types", () => {
    const job = cloudRunJob(input);
    expect(fieldErrors(CLOUD_RUN_V1, { object: "Job" }, job)).toEqual([]);
    expect(job).toMatchObject({
      apiVersion: "run.googleapis.com/v1",
      kind: "Job",
      spec: {
        template: {
          spec: {
            taskCount: 16,
            parallelism: 8,
            template: {
              spec: { maxRetries: 3, timeoutSeconds: "86400", serviceAccountName: input.serviceAccount },
            },
          },
        },
      },
    });
    const text = jobDefinitionText(input, "cloud-run", {
      api: "v1",
      region: "europe-west1",
      tables,
      schemaFiles,
      dump,
    });
    expect(load(text)).toEqual(JSON.parse(JSON.stringify(job)));
    expect(text).toMatch(/gcloud run jobs replace FILE --region=europe-west1/);
  });

  it("v2, the Admin API's Job resource: only documented fields, of their documented types", () => {
    const job = cloudRunJobV2(input);
    expect(fieldErrors(CLOUD_RUN_V2, { object: "Job" }, job)).toEqual([]);
    expect(job).toMatchObject({
      template: {
        taskCount: 16,
        parallelism: 8,
        template: { maxRetries: 3, timeout: "86400s", serviceAccount: input.serviceAccount },
      },
    });
    const text = jobDefinitionText(input, "cloud-run", {
      api: "v2",
      region: "us-central1",
      tables,
      schemaFiles,
      dump,
    });
    expect(JSON.parse(text)).toEqual(job);
  });

  it("the field check has teeth: an undocumented, an output-only or a mistyped field is named", () => {
    const job = cloudRunJobV2(input) as { template: Record<string, unknown> };
    expect(fieldErrors(CLOUD_RUN_V2, { object: "Job" }, { ...job, uid: "x" })).toEqual([
      ".uid: not a documented field of Job",
    ]);
    expect(
      fieldErrors(
        CLOUD_RUN_V2,
        { object: "Job" },
        { ...job, template: { ...job.template, taskCount: "16" } },
      ),
    ).toEqual([".template.taskCount: not a integer"]);
    const v1 = cloudRunJob(input) as { spec: { template: { spec: Record<string, unknown> } } };
    const misplaced = structuredClone(v1);
    misplaced.spec.template.spec.maxRetries = 3;
    expect(fieldErrors(CLOUD_RUN_V1, { object: "Job" }, misplaced)).toEqual([
      ".spec.template.spec.maxRetries: not a documented field of ExecutionSpec",
    ]);
  });

  it("mounts each schema file from its own Secret Manager secret; Cloud Run sets the task index", () => {
    const containers = (
      cloudRunJob(input) as {
        spec: {
          template: {
            spec: { template: { spec: { containers: { args: string[]; env: { name: string }[] }[] } } };
          };
        };
      }
    ).spec.template.spec.template.spec.containers;
    expect(containers[0]!.args).toEqual(
      taskArguments(input, { from: `${SCHEMA_DIR}/from/schema.yaml`, to: `${SCHEMA_DIR}/to/schema.json` }),
    );
    expect(containers[0]!.env.map((each) => each.name)).not.toContain("CLOUD_RUN_TASK_INDEX");
  });
});
