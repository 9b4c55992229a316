/**
 * `keyspread migrate job --engine cloud-run|kubernetes`: the job definition that runs the backfill
 * (or validate) as N tasks of an engine, ready to apply — the tasks' command line, image, count,
 * parallelism, retries, identity and resources (src/migrate/job-definition.ts).
 */
import { readFile, writeFile } from "node:fs/promises";
import { extname } from "node:path";
import type { Command } from "commander";
import { dump } from "js-yaml";
import { checkSameFields } from "../../migrate/backfill.js";
import {
  type CloudRunApi,
  type JobDefinitionInput,
  type JobEngine,
  type JobStep,
  jobDefinitionText,
  type SchemaFile,
} from "../../migrate/job-definition.js";
import { parseDuration } from "../../sim/scenario/duration.js";
import { formatStoreAddress, parseStoreAddress, type StoreAddress } from "../../store/open/store-address.js";
import { argumentOf, guarded, parsePositiveInt, readSchemaFile, wholeNumberIn, write } from "../shared/io.js";

/** Cloud Run's longest task timeout: 168 hours (Google Cloud, "Set task timeout for jobs", https://cloud.google.com/run/docs/configuring/task-timeout). */
const CLOUD_RUN_MAX_TIMEOUT_S = 168 * 3_600;
/** Kubernetes object names (DNS-1123 labels) and Cloud Run job names alike. */
const NAME = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

const choice =
  <T extends string>(field: string, allowed: readonly T[]) =>
  (text: string): T => {
    if (!(allowed as readonly string[]).includes(text))
      throw new Error(`${field} "${text}" is not one of ${allowed.join(", ")}`);
    return text as T;
  };

export function registerMigrateJobCommand(migrate: Command): void {
  migrate
    .command("job")
    .description(
      "write the job definition that runs backfill (or validate) as N tasks of Cloud Run jobs or a Kubernetes Indexed Job, ready to apply",
    )
    .requiredOption(
      "--engine <engine>",
      "cloud-run (gcloud run jobs replace) or kubernetes (kubectl apply)",
      argumentOf(choice<JobEngine>("--engine", ["cloud-run", "kubernetes"])),
    )
    .requiredOption("--from <store>", "the old table: bigtable:TABLE or bigtable:PROJECT/INSTANCE/TABLE")
    .requiredOption(
      "--from-schema <file>",
      "the old table's key schema (.json, .yaml): mounted into every task",
    )
    .requiredOption("--to <store>", "the new table, same forms as --from")
    .requiredOption("--to-schema <file>", "the new table's key schema")
    .requiredOption("--image <image>", "the container image with keyspread installed")
    .option(
      "--step <step>",
      "backfill or validate",
      argumentOf(choice<JobStep>("--step", ["backfill", "validate"])),
      "backfill" as JobStep,
    )
    .option("--tasks <n>", "tasks of the job", wholeNumberIn(1, 10_000), 8)
    .option("--parallelism <n>", "tasks running at once (default: all)", parsePositiveInt)
    .option(
      "--retries <n>",
      "retries of a failed task (the shared checkpoints make a retry resume)",
      wholeNumberIn(0, 10),
      3,
    )
    .option("--shards <m>", "shards of the key space (default: the task's, 8 × tasks)", parsePositiveInt)
    .option(
      "--read-app-profile <profile>",
      "read through this app profile (a Data Boost profile costs the cluster no CPU)",
    )
    .option("--write-app-profile <profile>", "write through this app profile (e.g. low priority)")
    .option("--rate <rows/s>", "at most this many rows per second, per task", parsePositiveInt)
    .option("--service-account <email>", "the Google service account the tasks run as")
    .option("--cpu <vcpus>", "vCPUs per task", "1")
    .option("--memory <quantity>", "memory per task (the Node heap gets 75 %)", "1Gi")
    .option("--timeout <duration>", "Cloud Run: time per task attempt (at most 168h)", "168h")
    .option("--name <name>", "the job's name (default keyspread-STEP-NEWTABLE)")
    .option("--command <word...>", "the image's command that runs keyspread", ["keyspread"])
    .option("--region <region>", "Cloud Run region, in the printed commands", "us-central1")
    .option(
      "--api <version>",
      "cloud-run: v1 (the YAML gcloud run jobs replace takes) or v2 (the Admin API v2 Job resource, JSON)",
      argumentOf(choice<CloudRunApi>("--api", ["v1", "v2"])),
      "v1" as CloudRunApi,
    )
    .option("--out <file>", "write here instead of stdout")
    .action(guarded(runJobCommand));
}

interface JobOptions {
  engine: JobEngine;
  from: string;
  fromSchema: string;
  to: string;
  toSchema: string;
  image: string;
  step: JobStep;
  tasks: number;
  parallelism?: number;
  retries: number;
  shards?: number;
  readAppProfile?: string;
  writeAppProfile?: string;
  rate?: number;
  serviceAccount?: string;
  cpu: string;
  memory: string;
  timeout: string;
  name?: string;
  command: string[];
  region: string;
  api: CloudRunApi;
  out?: string;
}

async function runJobCommand(options: JobOptions): Promise<void> {
  const from = bigtableTable("--from", options.from);
  const to = bigtableTable("--to", options.to);
  checkSameFields(await readSchemaFile(options.fromSchema), await readSchemaFile(options.toSchema));
  const timeoutS = parseDuration(options.timeout, "--timeout");
  if (options.engine === "cloud-run" && timeoutS > CLOUD_RUN_MAX_TIMEOUT_S)
    throw new Error(`--timeout ${options.timeout} is longer than Cloud Run's 168h for a task`);
  if (options.parallelism !== undefined && options.parallelism > options.tasks)
    throw new Error(`--parallelism ${options.parallelism} is more than --tasks ${options.tasks}`);
  if (!/^\d+(\.\d+)?$/.test(options.cpu))
    throw new Error(`--cpu must be a number of vCPUs, got "${options.cpu}"`);
  const name = options.name ?? defaultName(options.step, to.table);
  if (!NAME.test(name))
    throw new Error(
      `--name "${name}" must be lowercase letters, digits and hyphens, start with a letter, at most 63 characters`,
    );
  const input: JobDefinitionInput = {
    step: options.step,
    name,
    image: options.image,
    command: options.command,
    from: formatStoreAddress(from),
    to: formatStoreAddress(to),
    fromSchema: await schemaFile(options.fromSchema),
    toSchema: await schemaFile(options.toSchema),
    tasks: options.tasks,
    parallelism: options.parallelism ?? options.tasks,
    retries: options.retries,
    cpu: options.cpu,
    memory: options.memory,
    timeoutS,
    ...optional("shards", options.shards),
    ...optional("readAppProfile", options.readAppProfile),
    ...optional("writeAppProfile", options.writeAppProfile),
    ...optional("rate", options.rate),
    ...optional("serviceAccount", options.serviceAccount),
    ...optional(
      "project",
      from.projectId === undefined || to.projectId === undefined
        ? process.env.KEYSPREAD_BIGTABLE_PROJECT
        : undefined,
    ),
    ...optional(
      "instance",
      from.projectId === undefined || to.projectId === undefined
        ? process.env.KEYSPREAD_BIGTABLE_INSTANCE
        : undefined,
    ),
  };
  const text = jobDefinitionText(input, options.engine, {
    api: options.api,
    region: options.region,
    tables: { from: from.names, to: to.names },
    schemaFiles: { from: options.fromSchema, to: options.toSchema },
    dump: (document) => dump(document, { lineWidth: -1, noRefs: true, quoteStyle: "double" }),
  });
  if (options.out === undefined) await write(text);
  else await writeFile(options.out, text);
}

const optional = <K extends string, V>(key: K, value: V | undefined) =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };

/** A Bigtable address whose project and instance are known here (named, or from the environment). */
function bigtableTable(
  flag: string,
  text: string,
): StoreAddress & { kind: "bigtable"; names: { table: string; project: string; instance: string } } {
  const address = parseStoreAddress(text);
  if (address.kind !== "bigtable")
    throw new Error(
      `${flag} ${text}: a job's tasks run on many machines and share their state through the table; an embedded table lives in one directory (use bigtable:…, or run backfill on that machine)`,
    );
  const project = address.projectId ?? process.env.KEYSPREAD_BIGTABLE_PROJECT;
  const instance = address.instanceId ?? process.env.KEYSPREAD_BIGTABLE_INSTANCE;
  if (!project || !instance)
    throw new Error(
      `${flag} ${text}: name the project and instance (bigtable:PROJECT/INSTANCE/TABLE) or set KEYSPREAD_BIGTABLE_PROJECT and KEYSPREAD_BIGTABLE_INSTANCE`,
    );
  return { ...address, names: { table: address.table, project, instance } };
}

async function schemaFile(file: string): Promise<SchemaFile> {
  const extension = extname(file).toLowerCase();
  return { extension: extension === "" ? ".json" : extension, text: await readFile(file, "utf8") };
}

function defaultName(step: JobStep, table: string): string {
  const slug = table
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return `keyspread-${step}-${slug}`.slice(0, 63).replace(/-+$/, "");
}
