/**
 * What the built bin's `keyspread lab --out` writes for a scenario, read back, for the tests that
 * hold the studio to it: the run options both take (one simulated minute, no model-end reruns, as
 * `lab --duration 1m --no-sensitivity`), and the files compared byte for byte.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const LAB_RUN = { durationS: 60, sensitivity: false } as const;

/**
 * The files both write that the comparison holds: the HTML aside (see studio-run.test.ts), and the
 * Markdown report, whose heatmap section links the PNG images only `lab` draws.
 */
export const COMPARED_FILES = [
  "advice.json",
  "results.json",
  "recommended-schema.yaml",
  "migration.json",
] as const;

/** Runs the built bin's `lab --out` on `scenarioFile` (with `extra` arguments); resolves with the files it wrote, by name. */
export function labOut(scenarioFile: string, extra: readonly string[] = []): Promise<Record<string, string>> {
  const out = mkdtempSync(join(tmpdir(), "keyspread-lab-out-"));
  const args = ["dist/cli/main.js", "lab", scenarioFile, "--duration", "1m", "--no-sensitivity"];
  const child = spawn("node", [...args, ...extra, "--rows", "100", "--out", out], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (data: Buffer) => {
    stderr += data.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => {
      try {
        if (code !== 0) throw new Error(`lab --out exited with ${code}: ${stderr}`);
        const written = new Set(readdirSync(out));
        const compared = COMPARED_FILES.filter((name) => written.has(name));
        resolve(Object.fromEntries(compared.map((name) => [name, readFileSync(join(out, name), "utf8")])));
      } catch (error) {
        reject(error);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    });
  });
}
