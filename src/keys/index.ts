/** Key schemas: declare, compile, encode/decode, plan reads, check distribution. */

export { prefixSuccessor } from "./bytes.js";
export {
  BIGTABLE_MAX_KEY_BYTES,
  FieldValueError,
  KeyDecodeError,
  KeyTooLongError,
  QueryError,
  SchemaError,
} from "./errors.js";
export { compileSchema, defineSchema, parseSchema } from "./schema.js";
export * from "./types.js";
