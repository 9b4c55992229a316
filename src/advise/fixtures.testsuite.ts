/** Key samples for the advisor's tests: deterministic, shaped like the seeds' keys. */

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const START_MS = 1_764_000_000_000;
const hex8 = (next: () => number) =>
  Math.floor(next() * 2 ** 32)
    .toString(16)
    .padStart(8, "0");

/** `u<8 hex>#<ms>`: users with random-looking ids, time after the user (seed 000's watch history). */
export function userKeys(count: number): string[] {
  const next = random(1);
  return Array.from({ length: count }, (_, k) => `u${hex8(next)}#${START_MS + k * 5}`);
}

/** Seed 003: `deviceID#reverseTs`, 62 % of keys from one customer's `acme-NNNNNN` ids. */
export function fleetKeys(count: number): string[] {
  const next = random(3);
  return Array.from({ length: count }, (_, k) => {
    const device =
      next() < 0.62 ? `acme-${String(Math.floor(next() * 90_000)).padStart(6, "0")}` : hex8(next);
    return `${device}#${9_999_999_999_999 - (START_MS + k * 5)}`;
  });
}

/** Seed 000: `post_<ms>_u<id>` — the time leads the key. */
export function postKeys(count: number): string[] {
  const next = random(5);
  return Array.from({ length: count }, (_, k) => `post_${START_MS + k * 5}_u${Math.floor(next() * 200_000)}`);
}
