/**
 * Starting and stopping the Bigtable emulator from TypeScript (test setup, benchmarks) through
 * scripts/emulator.sh, the one script used everywhere.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
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

/**
 * Starts a new instance and returns its `127.0.0.1:PORT`; e.g. `startEmulator({ latency: "5ms" })`.
 * `record: false` (benchmarks) leaves out the request log tests read.
 */
export function startEmulator(options: { latency?: string; port?: number; record?: boolean } = {}): string {
  // The emulator exits by itself once this process is gone, even if it is killed before stopping it.
  const args = ["start", "--owner", String(process.pid)];
  if (options.latency !== undefined) args.push("--latency", options.latency);
  if (options.port !== undefined) args.push("--port", String(options.port));
  if (options.record === false) args.push("--no-record");
  return execFileSync("bash", [script, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}

export function stopEmulator(address: string): void {
  execFileSync("bash", [script, "stop", address], { stdio: "inherit" });
}

/**
 * CPU milliseconds the instance at `address` has used so far (user + system, from Linux's
 * /proc/PID/stat), for benchmarks whose emulator shares the client's cores.
 */
export function emulatorCpuMs(address: string): number {
  const port = address.split(":").pop();
  const pid = readFileSync(join(repositoryRoot(), ".emulator", "run", `${port}.pid`), "utf8").trim();
  // Fields after the parenthesised command name; utime and stime are the 12th and 13th, in clock ticks (100/s).
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
