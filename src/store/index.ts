/** The store implementations (the contract itself is in store.ts). */
export { DEFAULT_EMBEDDED_DIRECTORY, EmbeddedStore, type EmbeddedStoreOptions } from "./embedded.js";
export { MemoryStore, type MemoryStoreFaults, type MemoryStoreOptions } from "./memory.js";
