/** The library's public API. */
export type * from "./keys/types.js";
export * from "./store/index.js";
export type * from "./store/store.js";
export { RetryableStoreError } from "./store/store.js";
