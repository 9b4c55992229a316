/**
 * Vitest global setup: when BIGTABLE_EMULATOR_HOST is unset (scripts/test.sh sets it), starts the
 * Bigtable emulator through scripts/emulator.sh — the one script used everywhere — and stops it
 * after the run, so `npx vitest run src/store` works without any setup.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("../scripts/emulator.sh", import.meta.url));

export default function setup(): (() => void) | undefined {
  if (process.env.BIGTABLE_EMULATOR_HOST) return undefined;
  let address: string;
  try {
    address = execFileSync("bash", [script, "start"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }).trim();
  } catch (error) {
    console.warn(`Bigtable emulator not started; Bigtable tests will fail: ${(error as Error).message}`);
    return undefined;
  }
  process.env.BIGTABLE_EMULATOR_HOST = address;
  return () => {
    execFileSync("bash", [script, "stop", address], { stdio: "inherit" });
  };
}
