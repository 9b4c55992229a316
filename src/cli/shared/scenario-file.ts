/**
 * How `simulate`, `lab` and `advise` take a scenario: the file as the first argument. The older
 * `--scenario FILE` of `lab` and `advise` still works, with a note on stderr.
 */
import { readFile } from "node:fs/promises";
import { parseScenario, type Scenario } from "../../sim/scenario/scenario.js";

/** A scenario file that cannot be read or is not a valid scenario; names the file and why. */
export class ScenarioFileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`scenario file ${file}: ${reason}`);
    this.name = "ScenarioFileError";
  }
}

/** Two different files given, one as the argument and one with `--scenario`. */
export class ScenarioArgumentError extends Error {
  constructor(
    readonly argument: string,
    readonly flag: string,
  ) {
    super(`two scenario files given: ${argument} and --scenario ${flag}; give one, as the first argument`);
    this.name = "ScenarioArgumentError";
  }
}

export async function readScenarioFile(file: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ScenarioFileError(file, (error as Error).message);
  }
  try {
    return parseScenario(text);
  } catch (error) {
    throw new ScenarioFileError(file, (error as Error).message);
  }
}

/**
 * The scenario file a command was given: its first argument, else the deprecated `--scenario`
 * (with a note on stderr), else `fallback`.
 */
export function scenarioFileOf(
  command: string,
  argument: string | undefined,
  flag: string | undefined,
  fallback?: string,
): string | undefined {
  if (argument !== undefined && flag !== undefined && argument !== flag)
    throw new ScenarioArgumentError(argument, flag);
  if (argument === undefined && flag !== undefined)
    process.stderr.write(
      `keyspread ${command}: --scenario is deprecated; give the file as the first argument: keyspread ${command} ${flag}\n`,
    );
  return argument ?? flag ?? fallback;
}
