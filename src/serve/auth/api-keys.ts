/**
 * API keys for `keyspread serve --auth FILE`. A key is `ks_<id>_<secret>`: a public 16-hex-digit
 * id (what `keys list` shows and `keys revoke` takes) and 32 random bytes. The file keeps only the
 * SHA-256 of each key, never the key, with the one tenant it acts for and its scopes:
 * `ingest` (POST /v1/ingest), `read` (device reads), `admin` (/metrics, /v1/alerts, /heatmap).
 *
 * Verification hashes the presented key and compares with `crypto.timingSafeEqual`, against a
 * dummy hash when the id is unknown, so the time taken says nothing about how close a guess was.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import * as v from "valibot";
import { POINT_LIMITS } from "../ingest/points/ingest-body.js";

export const API_KEY_SCOPES = ["ingest", "read", "admin"] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

const ENTRY = v.strictObject({
  id: v.pipe(v.string(), v.regex(/^[0-9a-f]{16}$/, "id: expected 16 hex digits")),
  tenant: v.pipe(
    v.string(),
    v.regex(POINT_LIMITS.tenant, "tenant: expected 1–64 letters, digits, '.', '_' or '-'"),
  ),
  scopes: v.pipe(
    v.array(v.picklist(API_KEY_SCOPES, `scopes: each one of ${API_KEY_SCOPES.join(", ")}`)),
    v.minLength(1),
  ),
  sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, "sha256: expected 64 hex digits")),
  createdAt: v.string(),
  revokedAt: v.optional(v.string()),
});
const FILE = v.strictObject({ version: v.literal(1), keys: v.array(ENTRY) });

export type ApiKeyEntry = v.InferOutput<typeof ENTRY>;
export type ApiKeyFile = v.InferOutput<typeof FILE>;

const KEY_FORMAT = /^ks_([0-9a-f]{16})_[A-Za-z0-9_-]{43}$/;

export function emptyApiKeyFile(): ApiKeyFile {
  return { version: 1, keys: [] };
}

/** Throws an error naming the file and the first problem. */
export function parseApiKeyFile(text: string, path: string): ApiKeyFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`API key file ${path}: not valid JSON: ${(error as Error).message}`);
  }
  const result = v.safeParse(FILE, json);
  if (!result.success) throw new Error(`API key file ${path}: ${v.summarize(result.issues)}`);
  const ids = new Set<string>();
  for (const entry of result.output.keys) {
    if (ids.has(entry.id)) throw new Error(`API key file ${path}: id ${entry.id} appears twice`);
    ids.add(entry.id);
  }
  return result.output;
}

export function parseApiKeyScopes(text: string): ApiKeyScope[] {
  const scopes = text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  for (const scope of scopes) {
    if (!(API_KEY_SCOPES as readonly string[]).includes(scope)) {
      throw new Error(`scope ${JSON.stringify(scope)}: allowed: ${API_KEY_SCOPES.join(", ")}`);
    }
  }
  if (scopes.length === 0) throw new Error(`no scopes given; allowed: ${API_KEY_SCOPES.join(", ")}`);
  return [...new Set(scopes)] as ApiKeyScope[];
}

/** A new key and its file entry; the key itself is shown once and never stored. */
export function newApiKey(
  tenant: string,
  scopes: readonly ApiKeyScope[],
  now = new Date(),
): { key: string; entry: ApiKeyEntry } {
  if (!POINT_LIMITS.tenant.test(tenant)) {
    throw new Error(`tenant ${JSON.stringify(tenant)}: expected 1–64 letters, digits, ".", "_" or "-"`);
  }
  const id = randomBytes(8).toString("hex");
  const key = `ks_${id}_${randomBytes(32).toString("base64url")}`;
  return {
    key,
    entry: {
      id,
      tenant,
      scopes: [...scopes],
      sha256: sha256(key).toString("hex"),
      createdAt: now.toISOString(),
    },
  };
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Checks presented keys against one version of the file. */
export class ApiKeyVerifier {
  private readonly byId: Map<string, ApiKeyEntry>;
  private readonly unknown = randomBytes(32);

  constructor(readonly file: ApiKeyFile) {
    this.byId = new Map(file.keys.map((entry) => [entry.id, entry]));
  }

  /** The key's entry when it is valid and not revoked. */
  verify(key: string): ApiKeyEntry | undefined {
    const entry = this.byId.get(KEY_FORMAT.exec(key)?.[1] ?? "");
    const expected = entry === undefined ? this.unknown : Buffer.from(entry.sha256, "hex");
    const matches = timingSafeEqual(sha256(key), expected);
    return matches && entry !== undefined && entry.revokedAt === undefined ? entry : undefined;
  }

  /** Tenants with at least one key: they keep their own name in metrics and quotas. */
  tenants(): Set<string> {
    return new Set(this.file.keys.map((entry) => entry.tenant));
  }
}
