/** A design of the scenario that cannot be simulated: the `design`, and the error that says why as `cause`. */
export class DesignError extends Error {
  override readonly name = "DesignError";
  constructor(
    readonly design: string,
    override readonly cause: Error,
  ) {
    super(`design "${design}": ${cause.message}`, { cause });
  }
}
