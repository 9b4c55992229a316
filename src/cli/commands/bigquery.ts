/**
 * `keyspread bigquery`: for a Bigtable table and its key schema, the files that put its data in
 * front of BigQuery with the keys decoded, without copying it out: the external table (through a
 * Data Boost app profile), the decoding view, the entity reader, the change-streams template's
 * parameters and the view over its changelog, Bigtable's row key schema, and the DuckDB printing.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Command } from "commander";
import { bigQueryArtifacts, refusalMessages } from "../../bigquery/artifacts.js";
import { type CellColumn, parseCellColumn } from "../../export/columns.js";
import { writeFileAtomically } from "../../io/write-file-atomically.js";
import { argumentOf, guarded, readSchemaFile, write } from "../shared/io.js";

interface BigQueryCliOptions {
  schema: string;
  table: { project: string; instance: string; table: string };
  dataset: string;
  family?: string;
  appProfile?: string;
  changeStreamAppProfile?: string;
  region?: string;
  cell: CellColumn[];
  dayField?: string;
  out: string;
}

const NAME = /^[A-Za-z0-9_.-]+$/;

export function parseTablePath(text: string): BigQueryCliOptions["table"] {
  const parts = text.split("/");
  if (parts.length !== 3 || parts.some((part) => !NAME.test(part))) {
    throw new Error(`table "${text}": expected PROJECT/INSTANCE/TABLE (letters, digits, _ . -)`);
  }
  const [project, instance, table] = parts as [string, string, string];
  return { project, instance, table };
}

function parseName(what: string): (text: string) => string {
  return (text) => {
    if (!NAME.test(text)) throw new Error(`${what} "${text}": allowed: letters, digits, _ . -`);
    return text;
  };
}

export function registerBigQueryCommands(program: Command): void {
  program
    .command("bigquery")
    .description(
      "write the BigQuery external table, decoding view, entity reader, change-streams parameters and row key schema for a Bigtable table and its key schema",
    )
    .requiredOption("--schema <file>", "the table's key schema (.json, .yaml)")
    .requiredOption(
      "--table <path>",
      "the Bigtable table: PROJECT/INSTANCE/TABLE",
      argumentOf(parseTablePath),
    )
    .requiredOption(
      "--dataset <name>",
      "BigQuery dataset (dataset or project.dataset) in the table's region",
      argumentOf(parseName("dataset")),
    )
    .requiredOption("--out <dir>", "write the files here (created if missing; other files are left alone)")
    .option(
      "--family <name>",
      "the column family keyspread's cells live in (default $KEYSPREAD_BIGTABLE_FAMILY, else m)",
      argumentOf(parseName("family")),
    )
    .option(
      "--app-profile <id>",
      "the Data Boost app profile BigQuery reads through (default keyspread-data-boost)",
      argumentOf(parseName("app profile")),
    )
    .option(
      "--change-stream-app-profile <id>",
      "the single-cluster app profile the change-streams job reads through (default keyspread-change-stream)",
      argumentOf(parseName("app profile")),
    )
    .option("--region <region>", "the Dataflow region of the change-streams job (default us-central1)")
    .option(
      "--cell <name:type>",
      "give a cell its own typed column (DOUBLE, BIGINT, VARCHAR, BOOLEAN); repeatable",
      (text, all: CellColumn[]) => [...all, argumentOf(parseCellColumn)(text)],
      [],
    )
    .option(
      "--day-field <field>",
      "timestamp field giving the day column (default: the schema's first timestamp)",
    )
    .action(guarded(runBigQueryCommand));
}

async function runBigQueryCommand(options: BigQueryCliOptions): Promise<void> {
  const schema = await readSchemaFile(options.schema);
  const family = options.family ?? (process.env.KEYSPREAD_BIGTABLE_FAMILY || "m");
  const artifacts = bigQueryArtifacts(schema, {
    table: { ...options.table, family },
    dataset: options.dataset,
    cells: options.cell,
    ...(options.appProfile ? { appProfile: options.appProfile } : {}),
    ...(options.changeStreamAppProfile ? { changeStreamAppProfile: options.changeStreamAppProfile } : {}),
    ...(options.region ? { region: options.region } : {}),
    ...(options.dayField ? { dayField: options.dayField } : {}),
  });
  await mkdir(options.out, { recursive: true });
  for (const [file, content] of Object.entries(artifacts.files)) {
    await writeFileAtomically(join(options.out, file), content);
  }
  const { notes, commands } = artifacts;
  const refused = refusalMessages(artifacts.refused);
  await write(
    `${JSON.stringify({ out: options.out, files: Object.keys(artifacts.files), refused, notes, commands })}\n`,
  );
}
