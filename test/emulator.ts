/**
 * Starting and stopping the Bigtable emulator from TypeScript (test setup, benchmarks) through
 * scripts/emulator.sh, the one script used everywhere.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root: the nearest folder above this file with a package.json (this file also runs compiled, from .bench-build/test). */
function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("no package.json above test/emulator.ts");
    dir = parent;
  }
  return dir;
}

const script = join(repositoryRoot(), "scripts/emulator.sh");

/** Starts a new instance and returns its `127.0.0.1:PORT`; e.g. `startEmulator({ latency: "5ms" })`. */
export function startEmulator(options: { latency?: string; port?: number } = {}): string {
  // The emulator exits by itself once this process is gone, even if it is killed before stopping it.
  const args = ["start", "--owner", String(process.pid)];
  if (options.latency !== undefined) args.push("--latency", options.latency);
  if (options.port !== undefined) args.push("--port", String(options.port));
  return execFileSync("bash", [script, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}

export function stopEmulator(address: string): void {
  execFileSync("bash", [script, "stop", address], { stdio: "inherit" });
}
