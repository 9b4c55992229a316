/** One thing wrong with a scenario: the `field` (dotted path), the `kind` of rule it breaks, the `value` given. */
export interface ScenarioProblem {
  field: string;
  kind: string;
  value: unknown;
  message: string;
}

/** A scenario that is not valid, with each problem as data; the message lists them. */
export class ScenarioError extends Error {
  override readonly name = "ScenarioError";
  constructor(
    readonly problems: readonly ScenarioProblem[],
    message: string,
  ) {
    super(message);
  }
}

/** A scenario with one problem a check across fields found: the message is `invalid scenario: ` and `detail`. */
export function scenarioProblem(problem: Omit<ScenarioProblem, "message">, detail: string): ScenarioError {
  const message = `invalid scenario: ${detail}`;
  return new ScenarioError([{ ...problem, message }], message);
}

/** A design asked for by name that the scenario does not have: the `design`, the `scenario` and its `designs`. */
export class UnknownDesignError extends Error {
  override readonly name = "UnknownDesignError";
  constructor(
    readonly design: string,
    readonly scenario: string,
    readonly designs: readonly string[],
  ) {
    super(`design "${design}" is not in scenario "${scenario}"; designs: ${designs.join(", ")}`);
  }
}
