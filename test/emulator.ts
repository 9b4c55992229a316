/**
 * Starting and stopping the Bigtable emulator from TypeScript (test setup, benchmarks) through
 * scripts/emulator.sh, the one script used everywhere.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("../scripts/emulator.sh", import.meta.url));

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
