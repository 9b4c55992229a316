/**
 * Vitest global setup: when BIGTABLE_EMULATOR_HOST is unset (scripts/test.sh sets it), starts the
 * Bigtable emulator for the run and stops it afterwards, so `npx vitest run src/store` needs no
 * setup. Workers inherit the variable.
 */
import { startEmulator, stopEmulator } from "./emulator.js";

export default function setup(): (() => void) | undefined {
  if (process.env.BIGTABLE_EMULATOR_HOST) return undefined;
  let address: string;
  try {
    address = startEmulator();
  } catch (error) {
    console.warn(`Bigtable emulator not started; Bigtable tests will fail: ${(error as Error).message}`);
    return undefined;
  }
  process.env.BIGTABLE_EMULATOR_HOST = address;
  return () => stopEmulator(address);
}
