/** A line of an access log that is not a record: the field, the value found and what is allowed. */
import { AllowedValueError } from "../format/allowed-value-error.js";

/** `field` is a record's field (`ts`, `key`, `op`…), or `line` (not a JSON object) or `header` (the CSV header). */
export class AccessRecordError extends AllowedValueError {
  override readonly name = "AccessRecordError";
}
