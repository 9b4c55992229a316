/** A bad argument to the heatmap code: which argument, the value given and what it allows. */
export class VizArgumentError extends RangeError {
  override readonly name = "VizArgumentError";
  constructor(
    readonly argument: string,
    readonly value: unknown,
    readonly allowed: string,
    message = `${argument} ${String(value)}: expected ${allowed}`,
  ) {
    super(message);
  }
}
