/**
 * The job definition that runs `keyspread migrate backfill` (or `validate`) as N tasks of an
 * engine that runs N copies of one container with retries: a Kubernetes Indexed Job, or a Cloud
 * Run job. Each task learns its index from the engine (Kubernetes sets JOB_COMPLETION_INDEX in an
 * Indexed Job; Cloud Run sets CLOUD_RUN_TASK_INDEX and CLOUD_RUN_TASK_COUNT) and the task count
 * from `--tasks`; shards, leases and checkpoints live in the new table, so a retried task resumes
 * on a fresh machine. Pure: objects for the engines' schemas, the caller writes them.
 *
 * The schema files reach the container as files: a ConfigMap on Kubernetes, Secret Manager
 * secrets mounted as volumes on Cloud Run (Cloud Run mounts no ConfigMaps).
 */

import type { IJob } from "kubernetes-models/batch/v1/Job";
import type { IConfigMap } from "kubernetes-models/v1/ConfigMap";
import type { IServiceAccount } from "kubernetes-models/v1/ServiceAccount";

export type JobEngine = "cloud-run" | "kubernetes";
export type JobStep = "backfill" | "validate";

export interface SchemaFile {
  /** The file's extension, kept so the task parses it as the user wrote it (.json, .yaml, .yml). */
  extension: string;
  text: string;
}

export interface JobDefinitionInput {
  step: JobStep;
  name: string;
  image: string;
  /** The image's command that runs keyspread (default `keyspread`, on the PATH). */
  command: string[];
  /** Store addresses as the user wrote them (`bigtable:TABLE`, `bigtable:PROJECT/INSTANCE/TABLE`). */
  from: string;
  to: string;
  fromSchema: SchemaFile;
  toSchema: SchemaFile;
  tasks: number;
  /** Tasks running at once (default all). */
  parallelism: number;
  /** Retries of a failed task before it counts as failed. */
  retries: number;
  shards?: number;
  readAppProfile?: string;
  writeAppProfile?: string;
  /** Rows/s per task. */
  rate?: number;
  /** KEYSPREAD_BIGTABLE_PROJECT / _INSTANCE for addresses that do not name them. */
  project?: string;
  instance?: string;
  /** The Google service account the tasks run as (Cloud Run), or that a Kubernetes service account impersonates (GKE Workload Identity). */
  serviceAccount?: string;
  /** Per task: vCPUs and memory. */
  cpu: string;
  memory: string;
  /** Per attempt of a task (Cloud Run's task timeout; Kubernetes: none). */
  timeoutS: number;
}

/** Where the schema files are mounted in the container. */
export const SCHEMA_DIR = "/etc/keyspread";

/** The Node heap within the memory limit, leaving room for buffers and the runtime. */
const HEAP_SHARE = 0.75;

/** The task's command line: the contract `migrate backfill|validate` implements. */
export function taskArguments(
  input: JobDefinitionInput,
  schemaPaths: { from: string; to: string },
): string[] {
  return [
    "migrate",
    input.step,
    "--from",
    input.from,
    "--from-schema",
    schemaPaths.from,
    "--to",
    input.to,
    "--to-schema",
    schemaPaths.to,
    "--tasks",
    String(input.tasks),
    ...(input.shards === undefined ? [] : ["--shards", String(input.shards)]),
    ...(input.readAppProfile === undefined ? [] : ["--read-app-profile", input.readAppProfile]),
    ...(input.writeAppProfile === undefined ? [] : ["--write-app-profile", input.writeAppProfile]),
    ...(input.rate === undefined ? [] : ["--rate", String(input.rate)]),
  ];
}

function environment(input: JobDefinitionInput): { name: string; value: string }[] {
  return [
    ...(input.project === undefined ? [] : [{ name: "KEYSPREAD_BIGTABLE_PROJECT", value: input.project }]),
    ...(input.instance === undefined ? [] : [{ name: "KEYSPREAD_BIGTABLE_INSTANCE", value: input.instance }]),
    { name: "NODE_OPTIONS", value: `--max-old-space-size=${heapMiB(input.memory)}` },
  ];
}

/** Mebibytes of a Kubernetes quantity such as `1Gi` or `512Mi`. */
export function heapMiB(memory: string): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(memory);
  if (!match) throw new Error(`--memory must be like 512Mi or 2Gi, got "${memory}"`);
  const mib = Number(match[1]) * (match[2] === "Gi" ? 1024 : 1);
  return Math.floor(mib * HEAP_SHARE);
}

const labels = (input: JobDefinitionInput) => ({
  "app.kubernetes.io/name": "keyspread",
  "app.kubernetes.io/component": `migrate-${input.step}`,
});

/**
 * Kubernetes: a ConfigMap with the two schema files, a ServiceAccount (bound to the Google service
 * account through GKE Workload Identity when one is named) and a batch/v1 Indexed Job:
 * `completions` = `parallelism`-limited tasks, each index retried on its own (backoffLimitPerIndex).
 */
export function kubernetesJob(input: JobDefinitionInput): Record<string, unknown>[] {
  const schemaMap = `${input.name}-schemas`;
  const from = `from-schema${input.fromSchema.extension}`;
  const to = `to-schema${input.toSchema.extension}`;
  const serviceAccount = {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: {
      name: input.name,
      labels: labels(input),
      ...(input.serviceAccount === undefined
        ? {}
        : { annotations: { "iam.gke.io/gcp-service-account": input.serviceAccount } }),
    },
  } satisfies IServiceAccount;
  const configMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: schemaMap, labels: labels(input) },
    data: { [from]: input.fromSchema.text, [to]: input.toSchema.text },
  } satisfies IConfigMap;
  const job = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: input.name, labels: labels(input) },
    spec: {
      completionMode: "Indexed",
      completions: input.tasks,
      parallelism: input.parallelism,
      backoffLimitPerIndex: input.retries,
      template: {
        metadata: { labels: labels(input) },
        spec: {
          // backoffLimitPerIndex needs Never: a failed task is a new pod, with the same index.
          restartPolicy: "Never",
          serviceAccountName: input.name,
          containers: [
            {
              name: input.step,
              image: input.image,
              command: input.command,
              args: taskArguments(input, { from: `${SCHEMA_DIR}/${from}`, to: `${SCHEMA_DIR}/${to}` }),
              env: environment(input),
              resources: {
                requests: { cpu: input.cpu, memory: input.memory },
                limits: { memory: input.memory },
              },
              volumeMounts: [{ name: "schemas", mountPath: SCHEMA_DIR, readOnly: true }],
            },
          ],
          volumes: [{ name: "schemas", configMap: { name: schemaMap } }],
        },
      },
    },
  } satisfies IJob;
  return [serviceAccount, configMap, job];
}

/** The Secret Manager secrets a Cloud Run job mounts the schema files from. */
export function cloudRunSecrets(input: JobDefinitionInput): { from: string; to: string } {
  return { from: `${input.name}-from-schema`, to: `${input.name}-to-schema` };
}

/**
 * Cloud Run, as `gcloud run jobs replace FILE` takes it: a run.googleapis.com/v1 Job (Google
 * Cloud, "REST Resource: namespaces.jobs", https://cloud.google.com/run/docs/reference/rest/v1/namespaces.jobs).
 */
export function cloudRunJob(input: JobDefinitionInput): Record<string, unknown> {
  const secrets = cloudRunSecrets(input);
  const from = `schema${input.fromSchema.extension}`;
  const to = `schema${input.toSchema.extension}`;
  return {
    apiVersion: "run.googleapis.com/v1",
    kind: "Job",
    metadata: { name: input.name, labels: cloudRunLabels(input) },
    spec: {
      template: {
        metadata: { labels: cloudRunLabels(input) },
        spec: {
          taskCount: input.tasks,
          parallelism: input.parallelism,
          template: {
            spec: {
              maxRetries: input.retries,
              timeoutSeconds: String(input.timeoutS),
              ...(input.serviceAccount === undefined ? {} : { serviceAccountName: input.serviceAccount }),
              containers: [
                {
                  image: input.image,
                  command: input.command,
                  args: taskArguments(input, {
                    from: `${SCHEMA_DIR}/from/${from}`,
                    to: `${SCHEMA_DIR}/to/${to}`,
                  }),
                  env: environment(input),
                  resources: { limits: { cpu: input.cpu, memory: input.memory } },
                  volumeMounts: [
                    { name: "from-schema", mountPath: `${SCHEMA_DIR}/from`, readOnly: true },
                    { name: "to-schema", mountPath: `${SCHEMA_DIR}/to`, readOnly: true },
                  ],
                },
              ],
              volumes: [
                {
                  name: "from-schema",
                  secret: { secretName: secrets.from, items: [{ key: "latest", path: from }] },
                },
                {
                  name: "to-schema",
                  secret: { secretName: secrets.to, items: [{ key: "latest", path: to }] },
                },
              ],
            },
          },
        },
      },
    },
  };
}

/**
 * The same job as the Cloud Run Admin API v2 Job resource, for `POST
 * https://run.googleapis.com/v2/projects/P/locations/R/jobs?jobId=NAME` or Terraform's
 * google_cloud_run_v2_job (Google Cloud, "REST Resource: projects.locations.jobs",
 * https://cloud.google.com/run/docs/reference/rest/v2/projects.locations.jobs).
 */
export function cloudRunJobV2(input: JobDefinitionInput): Record<string, unknown> {
  const secrets = cloudRunSecrets(input);
  const from = `schema${input.fromSchema.extension}`;
  const to = `schema${input.toSchema.extension}`;
  return {
    labels: cloudRunLabels(input),
    template: {
      labels: cloudRunLabels(input),
      taskCount: input.tasks,
      parallelism: input.parallelism,
      template: {
        maxRetries: input.retries,
        timeout: `${input.timeoutS}s`,
        ...(input.serviceAccount === undefined ? {} : { serviceAccount: input.serviceAccount }),
        containers: [
          {
            image: input.image,
            command: input.command,
            args: taskArguments(input, { from: `${SCHEMA_DIR}/from/${from}`, to: `${SCHEMA_DIR}/to/${to}` }),
            env: environment(input),
            resources: { limits: { cpu: input.cpu, memory: input.memory } },
            volumeMounts: [
              { name: "from-schema", mountPath: `${SCHEMA_DIR}/from` },
              { name: "to-schema", mountPath: `${SCHEMA_DIR}/to` },
            ],
          },
        ],
        volumes: [
          {
            name: "from-schema",
            secret: { secret: secrets.from, items: [{ version: "latest", path: from }] },
          },
          { name: "to-schema", secret: { secret: secrets.to, items: [{ version: "latest", path: to }] } },
        ],
      },
    },
  };
}

/** Cloud Run rejects labels in its own namespaces; plain keys only. */
const cloudRunLabels = (input: JobDefinitionInput) => ({
  app: "keyspread",
  component: `migrate-${input.step}`,
});

export type CloudRunApi = "v1" | "v2";

/** IAM roles the tasks' service account needs, per table (Google Cloud, "Bigtable roles and permissions"). */
export const TASK_ROLES = {
  source: "roles/bigtable.reader",
  target: "roles/bigtable.user",
} as const;

const ROLES_SOURCE =
  'Google Cloud, "Bigtable roles and permissions" (https://cloud.google.com/iam/docs/roles-permissions/bigtable)';

/** Shell-quotes a word when it needs it. */
const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);

interface TableNames {
  from: { table: string; instance: string; project: string };
  to: { table: string; instance: string; project: string };
}

/** The definition as a file ready to apply, with the commands that set up its identity and inputs in comments. */
export function jobDefinitionText(
  input: JobDefinitionInput,
  engine: JobEngine,
  options: {
    api: CloudRunApi;
    region: string;
    tables: TableNames;
    /** The schema files as the user named them, for the commands that upload them. */
    schemaFiles: { from: string; to: string };
    dump: (document: unknown) => string;
  },
): string {
  const member =
    input.serviceAccount === undefined ? "serviceAccount:SA_EMAIL" : `serviceAccount:${input.serviceAccount}`;
  const grant = (table: TableNames["from"], role: string) =>
    `gcloud bigtable instances tables add-iam-policy-binding ${quote(table.table)} --instance=${quote(table.instance)} --project=${quote(table.project)} --member=${quote(member)} --role=${role}`;
  const roles = [
    `# The tasks' identity needs, per table — ${ROLES_SOURCE}:`,
    `#   ${TASK_ROLES.source} on the old table (ReadRows, SampleRowKeys);`,
    `#   ${TASK_ROLES.target} on the new table (the copies, and the job's shared shard state beside its schema row).`,
    "# Create the new table first (keyspread table create): the tasks hold no admin role.",
    `#   ${grant(options.tables.from, TASK_ROLES.source)}`,
    `#   ${grant(options.tables.to, TASK_ROLES.target)}`,
  ];
  const header = [
    `# keyspread migrate ${input.step} as ${input.tasks} task(s) of a ${engine === "kubernetes" ? "Kubernetes Indexed Job" : "Cloud Run job"}.`,
  ];
  if (engine === "kubernetes") {
    return `${[
      ...header,
      "# Each pod's index is JOB_COMPLETION_INDEX (set by Kubernetes in an Indexed Job); the count is --tasks.",
      ...roles,
      ...(input.serviceAccount === undefined
        ? []
        : [
            "# GKE Workload Identity: let the Kubernetes service account act as the Google one:",
            `#   gcloud iam service-accounts add-iam-policy-binding ${input.serviceAccount} --role=roles/iam.workloadIdentityUser --member='serviceAccount:PROJECT.svc.id.goog[NAMESPACE/${input.name}]'`,
          ]),
      `# Apply: kubectl apply -f FILE; watch: kubectl get job ${input.name} -w`,
    ].join("\n")}\n${kubernetesJob(input)
      .map((document) => `---\n${options.dump(document)}`)
      .join("")}`;
  }
  // The v2 API reads plain JSON: its setup is in docs/migrate.md.
  if (options.api === "v2") return `${JSON.stringify(cloudRunJobV2(input), null, 2)}\n`;
  const secrets = cloudRunSecrets(input);
  const project = options.tables.to.project;
  const setup = [
    ...header,
    "# Each task's index is CLOUD_RUN_TASK_INDEX, the count CLOUD_RUN_TASK_COUNT (set by Cloud Run).",
    ...roles,
    "# The schema files, as Secret Manager secrets the job mounts (the identity needs roles/secretmanager.secretAccessor on them):",
    `#   gcloud secrets create ${secrets.from} --project=${quote(project)} --data-file=${quote(options.schemaFiles.from)}`,
    `#   gcloud secrets create ${secrets.to} --project=${quote(project)} --data-file=${quote(options.schemaFiles.to)}`,
  ];
  return `${[
    ...setup,
    `# Apply: gcloud run jobs replace FILE --region=${options.region} --project=${quote(project)}`,
    `# Run:   gcloud run jobs execute ${input.name} --region=${options.region} --project=${quote(project)}`,
  ].join("\n")}\n${options.dump(cloudRunJob(input))}`;
}
