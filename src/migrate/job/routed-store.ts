/**
 * A store whose reads and writes go through given app profiles unless a call names its own: a
 * backfill reads its source through a Data Boost (or read-only) profile and writes its target
 * through a low-priority one, without every layer in between passing profiles along.
 */
import type { Store } from "../../store/store.js";

export function routedStore(
  store: Store,
  profiles: { read?: string | undefined; write?: string | undefined },
): Store {
  const { read, write } = profiles;
  if (read === undefined && write === undefined) return store;
  const reading = <O extends { appProfile?: string }>(options: O | undefined): O =>
    ({
      ...options,
      ...(read !== undefined && options?.appProfile === undefined ? { appProfile: read } : {}),
    }) as O;
  const writing = <O extends { appProfile?: string }>(options: O | undefined): O =>
    ({
      ...options,
      ...(write !== undefined && options?.appProfile === undefined ? { appProfile: write } : {}),
    }) as O;
  return {
    name: store.name,
    write: (mutations, options) => store.write(mutations, writing(options)),
    checkAndMutate: (mutation, condition, options) =>
      store.checkAndMutate(mutation, condition, writing(options)),
    get: (key, options) => store.get(key, reading(options)),
    read: (ranges, options) => store.read(ranges, reading(options)),
    sampleKeys: (count) => store.sampleKeys(count),
    close: () => store.close(),
  };
}
