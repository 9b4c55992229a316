/** The store implementations (the contract itself is in store.ts). */
export { MemoryStore, type MemoryStoreFaults, type MemoryStoreOptions } from "./memory.js";
