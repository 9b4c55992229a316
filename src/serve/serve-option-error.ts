/**
 * An option of the ingest service (or of its deployment) outside what it allows: its `field`,
 * `value` and what is `allowed`.
 */
import { AllowedValueError } from "../format/allowed-value-error.js";

export class ServeOptionError extends AllowedValueError {
  override readonly name = "ServeOptionError";
}
