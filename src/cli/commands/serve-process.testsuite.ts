/**
 * What the tests of `keyspread serve` as a real process share: start the built bin on a directory
 * (it prints its URL once listening), wait for it to exit, read a device's points back.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

export const T0 = 1_764_484_000_000;

/** The service exited before it listened: its exit `code` and all it wrote to `stderr`. */
export class ServeExited extends Error {
  override readonly name = "ServeExited";
  constructor(
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(`serve exited with ${code} before listening: ${stderr}`);
  }
}

export function startServe(
  dir: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(
    process.execPath,
    [
      "dist/cli/main.js",
      "serve",
      "--dir",
      dir,
      "--port",
      "0",
      "--interval",
      "300ms",
      "--cache-ttl",
      "0s",
      ...extra,
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } },
  );
  let stderr = "";
  child.stderr!.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once("line", (line) =>
      resolve({ child, url: (JSON.parse(line) as { url: string }).url, stderr: () => stderr }),
    );
    child.once("exit", (code) => reject(new ServeExited(code, stderr)));
  });
}

export const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once("exit", (code) => resolve(code));
  });

export async function readAll(url: string, deviceId: string): Promise<Set<number>> {
  const res = await fetch(`${url}/v1/devices/${deviceId}/range?tenant=acme&from=0&to=${T0 + 10_000_000}`);
  const body = (await res.json()) as { points: { ts: number }[] };
  return new Set(body.points.map((point) => point.ts));
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built bin without blocking the event loop (a load or a service keeps going meanwhile). */
export function cli(args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["dist/cli/main.js", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk) => (stdout += chunk));
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The last line of a command's output, as JSON. */
export const lastJson = (text: string) => JSON.parse(text.trim().split("\n").at(-1)!);
