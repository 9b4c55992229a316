/**
 * A runbook as one test per step, run in order: a failing step fails under its own name, and the
 * steps after it are skipped rather than failing for its reason.
 */
import { it } from "vitest";

export type RunbookStep = (name: string, body: () => Promise<void>, timeoutMs?: number) => void;

/**
 * A fresh sequence of steps: call it once per runbook (per `describe`). A step's own timeout wins
 * over `stepTimeoutMs` (default: the configured test timeout).
 */
export function runbookSteps(stepTimeoutMs?: number): RunbookStep {
  let failed: string | undefined;
  return (name, body, timeoutMs) =>
    it(
      name,
      async (context) => {
        if (failed !== undefined) context.skip(`an earlier step failed: ${failed}`);
        // On any failure, a timeout included (the body may still be running then).
        context.onTestFailed(() => {
          failed ??= name;
        });
        await body();
      },
      timeoutMs ?? stepTimeoutMs,
    );
}
