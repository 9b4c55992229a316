/**
 * Key samples for the advisor's tests: deterministic (a seeded generator), shaped like the keys
 * real tables have — the textbook keys, epoch and ISO times, generated ids (UUID v1/v4/v7,
 * ULID, Snowflake), reverse-domain URLs, and keys that are already salted (decimal, hex, one byte).
 */

export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const START_MS = 1_764_000_000_000;
const pad = (n: number, width: number) => String(n).padStart(width, "0");
const hex = (next: () => number, digits: number) =>
  Array.from({ length: digits }, () => Math.floor(next() * 16).toString(16)).join("");
const hex8 = (next: () => number) => hex(next, 8);
const pick = <T>(next: () => number, values: readonly T[]) => values[Math.floor(next() * values.length)]!;
const sample = (count: number, key: (k: number) => string) => Array.from({ length: count }, (_, k) => key(k));

/** `u<8 hex>#<ms>`: users with random-looking ids, time after the user (the salting guide's watch history). */
export function userKeys(count: number): string[] {
  const next = random(1);
  return sample(count, (k) => `u${hex8(next)}#${START_MS + k * 5}`);
}

/** The fleet incident: `deviceID#reverseTs`, 62 % of keys from one customer's `acme-NNNNNN` ids. */
export function fleetKeys(count: number): string[] {
  const next = random(3);
  return sample(count, (k) => {
    const device = next() < 0.62 ? `acme-${pad(Math.floor(next() * 90_000), 6)}` : hex8(next);
    return `${device}#${9_999_999_999_999 - (START_MS + k * 5)}`;
  });
}

/** The textbook keys: `post_<ms>_u<id>` — the time leads the key. */
export function postKeys(count: number): string[] {
  const next = random(5);
  return sample(count, (k) => `post_${START_MS + k * 5}_u${Math.floor(next() * 200_000)}`);
}

/** The textbook key `txn00001`: a counter of `width` digits after a constant word. */
export function counterKeys(count: number, word = "txn", width = 5): string[] {
  return sample(count, (k) => `${word}${pad(k + 1, width)}`);
}

/** Snowflake ids (Twitter's layout: ms since 2010-11-04 << 22 | worker << 12 | sequence), writers interleaved. */
export function snowflakeKeys(count: number): string[] {
  const next = random(7);
  const epoch = 1_288_834_974_657n;
  return sample(count, (k) => {
    const ms = BigInt(START_MS + Math.floor(k / 4)) - epoch;
    return String((ms << 22n) | (BigInt(Math.floor(next() * 1024)) << 12n) | BigInt(k % 4096));
  });
}

/** `<epoch s>#sensor-NNNN`: seconds lead the key, 5,000 sensors after them. */
export function epochSecondKeys(count: number): string[] {
  const next = random(11);
  return sample(
    count,
    (k) => `${1_764_000_000 + Math.floor(k / 20)}#sensor-${pad(Math.floor(next() * 5000), 4)}`,
  );
}

/** `<epoch µs>_<8 hex>`: microseconds lead the key, a random id after them. */
export function epochMicroKeys(count: number): string[] {
  const next = random(13);
  return sample(count, (k) => `${1_764_000_000_000_000 + k * 37}_${hex8(next)}`);
}

/** `2025-11-24T16:00:00.123Z#device-NNNNN`: an ISO-8601 time leads the key. */
export function isoKeys(count: number): string[] {
  const next = random(17);
  return sample(
    count,
    (k) => `${new Date(START_MS + k * 7).toISOString()}#device-${pad(Math.floor(next() * 20_000), 5)}`,
  );
}

/** The textbook key `post_20240101_001`: a day, then a counter within it. */
export function dayCounterKeys(count: number): string[] {
  return sample(count, (k) => `post_20240101_${pad(k + 1, 3)}`);
}

/** `post_20240101_<8 hex>`: a day, then random post ids. */
export function dayRandomKeys(count: number): string[] {
  const next = random(19);
  return sample(count, () => `post_20240101_${hex8(next)}`);
}

/** The salting guide's `patient12345_20240315_080000`: a patient, a day, a time of day. */
export function patientKeys(count: number): string[] {
  const next = random(23);
  return sample(count, (k) => {
    const seconds = 8 * 3600 + k * 3;
    const clock = `${pad(Math.floor(seconds / 3600), 2)}${pad(Math.floor(seconds / 60) % 60, 2)}${pad(seconds % 60, 2)}`;
    return `patient${10_000 + Math.floor(next() * 90_000)}_20240315_${clock}`;
  });
}

/** `tenant#device#reverseTs`: one tenant (acme) makes 62 % of the writes. */
export function tenantDeviceKeys(count: number): string[] {
  const next = random(29);
  const others = ["globex", "initech", "umbrella", "hooli", "stark", "wayne", "wonka", "tyrell"];
  return sample(count, (k) => {
    const tenant = next() < 0.62 ? "acme" : pick(next, others);
    return `${tenant}#dev-${pad(Math.floor(next() * 30_000), 6)}#${9_999_999_999_999 - (START_MS + k * 5)}`;
  });
}

/** Reverse-domain URLs (`com.site42.www/articles/…`), paths of varying depth, over 400 sites. */
export function reverseDomainKeys(count: number): string[] {
  const next = random(31);
  const tlds = ["com", "org", "net", "io", "de"];
  return sample(count, () => {
    const site = Math.floor(next() * 400);
    const depth = 1 + Math.floor(next() * 3);
    const path = Array.from({ length: depth }, () => `p${Math.floor(next() * 1000)}`).join("/");
    return `${tlds[site % tlds.length]}.site${site}.www/${path}`;
  });
}

const uuidText = (hex32: string) =>
  `${hex32.slice(0, 8)}-${hex32.slice(8, 12)}-${hex32.slice(12, 16)}-${hex32.slice(16, 20)}-${hex32.slice(20)}`;
const variant = (next: () => number) => pick(next, ["8", "9", "a", "b"]);

/** Random UUIDs (v4). */
export function uuidV4Keys(count: number): string[] {
  const next = random(37);
  return sample(count, () => uuidText(`${hex(next, 12)}4${hex(next, 3)}${variant(next)}${hex(next, 15)}`));
}

/** UUID v7: 48-bit ms time first. */
export function uuidV7Keys(count: number): string[] {
  const next = random(41);
  return sample(count, (k) =>
    uuidText(
      `${(START_MS + k).toString(16).padStart(12, "0")}7${hex(next, 3)}${variant(next)}${hex(next, 15)}`,
    ),
  );
}

/** UUID v1: time_low, time_mid, version + time_hi (100-ns ticks since 1582), clock sequence, node. */
export function uuidV1Keys(count: number): string[] {
  const next = random(43);
  const node = hex(next, 12);
  return sample(count, (k) => {
    const ticks = (BigInt(START_MS + k) * 10_000n + 122_192_928_000_000_000n).toString(16).padStart(15, "0");
    return uuidText(
      `${ticks.slice(7)}${ticks.slice(3, 7)}1${ticks.slice(0, 3)}${variant(next)}${hex(next, 3)}${node}`,
    );
  });
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** ULIDs: 10 Crockford characters of ms time, 16 of randomness. */
export function ulidKeys(count: number): string[] {
  const next = random(47);
  return sample(count, (k) => {
    let ms = START_MS + k;
    let time = "";
    for (let i = 0; i < 10; i++) {
      time = CROCKFORD[ms % 32]! + time;
      ms = Math.floor(ms / 32);
    }
    return time + Array.from({ length: 16 }, () => pick(next, [...CROCKFORD])).join("");
  });
}

/** The game-studio recipe's `042_player_456789_purchase_20240315143022`: 100 salt buckets over the whole key. */
export function decimalSaltedKeys(count: number): string[] {
  const next = random(53);
  const actions = ["purchase", "login", "logout", "levelup"];
  return sample(count, (k) => {
    const seconds = 14 * 3600 + 30 * 60 + k;
    const clock = `${pad(Math.floor(seconds / 3600), 2)}${pad(Math.floor(seconds / 60) % 60, 2)}${pad(seconds % 60, 2)}`;
    return `${pad(Math.floor(next() * 100), 3)}_player_${100_000 + Math.floor(next() * 800_000)}_${pick(next, actions)}_20240315${clock}`;
  });
}

/** `3f#device-NNNNNN#ms`: 256 hex salt buckets over 2,000 devices (each device keeps its bucket). */
export function hexSaltedKeys(count: number): string[] {
  const next = random(59);
  return sample(count, (k) => {
    const device = Math.floor(next() * 2000);
    const bucket = (Math.imul(device, 2654435761) >>> 24).toString(16).padStart(2, "0");
    return `${bucket}#device-${pad(device, 6)}#${START_MS + k * 3}`;
  });
}

/** Apache Phoenix, as hex lines: one salt byte (16 buckets) over the whole key, a VARCHAR device id, NUL, a BIGINT ms (sign bit flipped). */
export function phoenixSaltedHexLines(count: number): string[] {
  const next = random(61);
  return sample(count, (k) => {
    const device = Buffer.from(`dev-${pad(Math.floor(next() * 50_000), 6)}`, "latin1");
    const ts = Buffer.alloc(8);
    ts.writeBigUInt64BE(BigInt(START_MS + k * 3) + 2n ** 63n);
    const salt = Buffer.of(Math.floor(next() * 16));
    return Buffer.concat([salt, device, Buffer.of(0), ts]).toString("hex");
  });
}

/** A counter salted by hand into `buckets` buckets (`1_txn00000042`): too few buckets for the nodes. */
export function underSaltedKeys(count: number, buckets = 2): string[] {
  return sample(count, (k) => `${k % buckets}_txn${pad(k + 1, 8)}`);
}
