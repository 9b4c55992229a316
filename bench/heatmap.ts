/**
 * Heatmap benchmark: 1 M synthetic access records written to a temporary JSONL file, streamed into
 * a matrix (one read of the file, records kept compactly) and rendered to PNG. Baseline, same run:
 * one readline pass that only JSON.parses each line — what a plain JSONL reader pays (the matrix's
 * reader reads lines in the common field order straight from the file's bytes instead, and any
 * other line through JSON.parse).
 */
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { syntheticAccess } from "../src/viz/input/synthetic-access.js";
import { readAccessLogMatrix } from "../src/viz/matrix/log-matrix.js";
import { detectPatterns } from "../src/viz/patterns/detect-patterns.js";
import { renderHeatmapPng } from "../src/viz/render/png.js";

const RECORDS = 1_000_000;
const progress = (message: string) => {
  if (process.stderr.isTTY) process.stderr.write(`${message}\n`);
};

async function writeLog(path: string): Promise<void> {
  const out = createWriteStream(path);
  let chunk = "";
  for (const record of syntheticAccess("hot-band", { records: RECORDS })) {
    chunk += `${JSON.stringify({ ts: record.tsMs, key: record.key.toString(), op: record.op, bytes: record.bytes, latencyMs: Number(record.latencyMs!.toFixed(2)) })}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
      chunk = "";
    }
  }
  out.end(chunk);
  await new Promise<void>((resolve, reject) => out.on("finish", () => resolve()).on("error", reject));
}

async function parseOnly(path: string): Promise<number> {
  let parsed = 0;
  for await (const line of createInterface({
    input: createReadStream(path),
    crlfDelay: Number.POSITIVE_INFINITY,
  })) {
    if (line) parsed += JSON.parse(line).bytes > -1 ? 1 : 0;
  }
  return parsed;
}

const dir = await mkdtemp(join(tmpdir(), "keyspread-bench-heatmap-"));
try {
  const log = join(dir, "access.jsonl");
  progress(`writing ${RECORDS} records to ${log}`);
  await writeLog(log);

  progress("baseline: readline + JSON.parse, one pass");
  let started = performance.now();
  const baselineCpuBefore = process.cpuUsage();
  const parsed = await parseOnly(log);
  const baselineS = (performance.now() - started) / 1000;
  const baselineCpu = process.cpuUsage(baselineCpuBefore);
  const baselineCpuS = (baselineCpu.user + baselineCpu.system) / 1e6;
  if (parsed !== RECORDS) throw new Error(`baseline parsed ${parsed} of ${RECORDS} records`);

  progress("ours: one streaming read → matrix");
  started = performance.now();
  const cpuBefore = process.cpuUsage();
  const matrix = await readAccessLogMatrix(log);
  const matrixS = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  // CPU seconds too: on a shared machine wall time also measures the neighbours.
  const matrixCpuS = (cpu.user + cpu.system) / 1e6;
  const rssMb = process.memoryUsage().rss / 1e6;

  progress("ours: matrix → PNG");
  started = performance.now();
  const png = renderHeatmapPng(matrix);
  const pngS = (performance.now() - started) / 1000;

  const patterns = detectPatterns(matrix).map((pattern) => pattern.kind);
  progress(
    `matrix ${matrix.rows.length} rows × ${matrix.time.columns} columns; PNG ${png.length} bytes; patterns: ${patterns.join(", ")}`,
  );
  console.log(
    `bench heatmap: records_per_s=${Math.round(RECORDS / matrixS)} png_wall_s=${pngS.toFixed(3)} ` +
      `matrix_wall_s=${matrixS.toFixed(3)} matrix_cpu_s=${matrixCpuS.toFixed(3)} baseline_parse_s=${baselineS.toFixed(3)} baseline_cpu_s=${baselineCpuS.toFixed(3)} ` +
      `matrix_vs_parse_wall=${(matrixS / baselineS).toFixed(2)} matrix_vs_parse_cpu=${(matrixCpuS / baselineCpuS).toFixed(2)} rss_mb=${Math.round(rssMb)} ` +
      `rows=${matrix.rows.length} columns=${matrix.time.columns}`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
