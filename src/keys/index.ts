/** Key schemas: declare, compile, encode/decode, plan reads, check the salt's distribution. */

export { parseHex, prefixSuccessor } from "./bytes.js";
export {
  assertEvenDistribution,
  bucketCounts,
  DistributionError,
  type DistributionReport,
  distributionReport,
  summarizeBucketCounts,
} from "./distribution.js";
export {
  BIGTABLE_MAX_KEY_BYTES,
  FieldValueError,
  type FieldValueProblem,
  KeyDecodeError,
  type KeyDecodeProblem,
  KeyTextError,
  KeyTooLongError,
  QueryError,
  type QueryProblem,
  SchemaError,
  type SchemaProblem,
} from "./errors.js";
export { queryFromJson, valuesFromJson, valuesToJson } from "./json.js";
export { pickFields } from "./pick-fields.js";
export { reversedLeadSplits } from "./reversed-splits.js";
export { compileSchema, defineSchema, parseSchema } from "./schema.js";
export type * from "./types.js";
export { WriteShardError } from "./write-shards.js";
