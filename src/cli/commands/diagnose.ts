/**
 * `keyspread diagnose`: a live table's hot tablets, tablet boundaries and a key sample, decoded
 * through the schema; what is wrong in words, with the evidence and what to do; and with `--out DIR`
 * a ready scenario.yaml for `lab --scenario`, `advise --scenario` and `replay`.
 */
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { type Command, Option } from "commander";
import { parseWorkloadRates } from "../../advise/infer/rates.js";
import { diagnoseTable } from "../../diagnose/diagnose-table.js";
import { DiagnoseRefusal } from "../../diagnose/diagnosis/refusal.js";
import { parseHotTabletsJson } from "../../diagnose/gather/hot-tablets-json.js";
import { diagnoseJson } from "../../diagnose/report/report-json.js";
import { diagnoseText } from "../../diagnose/report/report-text.js";
import { scenarioYaml } from "../../diagnose/report/scenario-file.js";
import { writeFileAtomically } from "../../io/write-file-atomically.js";
import { parseDuration } from "../../sim/scenario/duration.js";
import { guarded, parsePositiveInt, readSchemaFile } from "../shared/io.js";

interface DiagnoseCliOptions {
  store: "bigtable" | "embedded";
  table: string;
  schema: string;
  cluster?: string;
  project?: string;
  instance?: string;
  since: string;
  sample: number;
  sampleTimeout: string;
  rowBytes?: number;
  hotTablets?: string;
  accessLog?: string;
  directory?: string;
  rates?: string;
  nodes?: number;
  storage?: "ssd" | "hdd";
  out?: string;
  json?: boolean;
  force?: boolean;
}

export function registerDiagnoseCommands(program: Command): void {
  program
    .command("diagnose")
    .description(
      "diagnose a live table: hot tablets, tablet sizes and a key sample decoded through the schema, what is wrong and what to do, and a ready scenario",
    )
    .addOption(
      new Option("--store <kind>", "where the table lives")
        .choices(["bigtable", "embedded"])
        .makeOptionMandatory(),
    )
    .requiredOption("--table <id>", "the table")
    .requiredOption("--schema <file>", "the table's key schema (.yaml/.json)")
    .option(
      "--cluster <id>",
      "bigtable: the cluster whose hot tablets to list (default: the instance's only cluster)",
    )
    .option("--project <id>", "bigtable: the project (default KEYSPREAD_BIGTABLE_PROJECT)")
    .option("--instance <id>", "bigtable: the instance (default KEYSPREAD_BIGTABLE_INSTANCE)")
    .option(
      "--since <duration>",
      "bigtable: look back this far for hot tablets (at most 14d; a recorded answer covers its own times)",
      "24h",
    )
    .option(
      "--sample <rows>",
      "keys to sample at most (a row-sample filter; never a full scan)",
      parsePositiveInt,
      5000,
    )
    .option("--sample-timeout <duration>", "stop the key sample after this long", "30s")
    .option(
      "--row-bytes <n>",
      "bytes per row: the scenario's, and on bigtable the row sample's probability (default 1024)",
      parsePositiveInt,
    )
    .option(
      "--hot-tablets <file>",
      "bigtable: a recorded ListHotTablets answer (JSON) instead of calling the admin API",
    )
    .option(
      "--access-log <file>",
      "embedded: the table's access log (JSONL or CSV), where the heat comes from",
    )
    .option("--directory <dir>", "embedded: parent directory of the tables (default ./.keyspread)")
    .option(
      "--rates <list>",
      "for the scenario: writes=N,latest-<count>=N,range-<duration>=N,get=N (default: implied by the hot tablets)",
    )
    .option(
      "--nodes <n>",
      "for the scenario: the cluster's nodes (bigtable default: the cluster's)",
      parsePositiveInt,
    )
    .addOption(
      new Option(
        "--storage <kind>",
        "for the scenario: node storage (bigtable default: the cluster's)",
      ).choices(["ssd", "hdd"]),
    )
    .option("--out <dir>", "write diagnosis.md, diagnosis.json and scenario.yaml here")
    .option("--json", "print one JSON object")
    .option(
      "--force",
      "diagnose even when the schema does not fit the table (most sampled keys undecodable, or the table records another schema)",
    )
    .action(guarded(refusedAsJson(diagnoseCommand)));
}

async function diagnoseCommand(options: DiagnoseCliOptions): Promise<void> {
  const schema = await readSchemaFile(options.schema);
  const rates = options.rates === undefined ? undefined : parseWorkloadRates(options.rates);
  const common = {
    schema,
    ...(rates ? { rates } : {}),
    ...(options.nodes === undefined ? {} : { nodes: options.nodes }),
    ...(options.storage === undefined ? {} : { storage: options.storage }),
    ...(options.rowBytes === undefined ? {} : { rowBytes: options.rowBytes }),
    ...(options.force ? { force: true } : {}),
  };
  const result =
    options.store === "embedded"
      ? await diagnoseTable({
          ...common,
          store: "embedded",
          table: options.table,
          sample: options.sample,
          accessLog: requireAccessLog(options),
          ...(options.directory === undefined ? {} : { directory: options.directory }),
        })
      : await diagnoseTable({
          ...common,
          store: "bigtable",
          tableId: options.table,
          sinceS: parseDuration(options.since, "--since"),
          sample: options.sample,
          sampleTimeoutMs: parseDuration(options.sampleTimeout, "--sample-timeout") * 1000,
          ...(options.cluster === undefined ? {} : { cluster: options.cluster }),
          ...(options.project === undefined ? {} : { projectId: options.project }),
          ...(options.instance === undefined ? {} : { instanceId: options.instance }),
          ...(options.hotTablets === undefined
            ? {}
            : { recordedHotTablets: await readHotTablets(options.hotTablets) }),
        });
  const { report, notes } = result;
  let scenarioPath: string | undefined;
  const written: string[] = [];
  if (options.out !== undefined) {
    await mkdir(options.out, { recursive: true });
    if (report.scenario) {
      scenarioPath = join(options.out, "scenario.yaml");
      await writeFileAtomically(scenarioPath, scenarioYaml(report.scenario));
      written.push(scenarioPath);
    }
    const text = diagnoseText(report, { notes, ...(scenarioPath ? { scenarioPath } : {}) });
    for (const [name, content] of [
      ["diagnosis.md", text],
      ["diagnosis.json", `${diagnoseJson(result)}\n`],
    ] as const) {
      await writeFileAtomically(join(options.out, name), content);
      written.push(join(options.out, name));
    }
  }
  if (options.json) {
    process.stdout.write(`${diagnoseJson({ ...result, written })}\n`);
    return;
  }
  process.stdout.write(diagnoseText(report, { notes, ...(scenarioPath ? { scenarioPath } : {}) }));
  if (written.length) process.stdout.write(`\nwrote:\n${written.map((path) => `  ${path}\n`).join("")}`);
}

/**
 * A refusal under `--json` is also one JSON object on stdout (`{"refused": {code, message, details}}`),
 * so a script reads why; the exit is non-zero and the message on stderr either way.
 */
function refusedAsJson(
  command: (options: DiagnoseCliOptions) => Promise<void>,
): (options: DiagnoseCliOptions) => Promise<void> {
  return async (options) => {
    try {
      await command(options);
    } catch (error) {
      if (options.json && error instanceof DiagnoseRefusal)
        process.stdout.write(
          `${JSON.stringify({ refused: { code: error.code, message: error.message, forcible: error.forcible, details: error.details } })}\n`,
        );
      throw error;
    }
  };
}

function requireAccessLog(options: DiagnoseCliOptions): string {
  if (options.accessLog === undefined)
    throw new Error(
      "--store embedded needs --access-log FILE: the embedded store has no hot-tablet API, so the heat comes from its access log",
    );
  return options.accessLog;
}

async function readHotTablets(file: string) {
  try {
    return parseHotTabletsJson(await readFile(file, "utf8"));
  } catch (error) {
    throw new Error(`--hot-tablets ${file}: ${(error as Error).message}`);
  }
}
