/** An option of a migration step outside what it allows: its `field`, `value` and what is `allowed`. */
import { AllowedValueError } from "../format/allowed-value-error.js";

export class MigrateOptionError extends AllowedValueError {
  override readonly name = "MigrateOptionError";
}
