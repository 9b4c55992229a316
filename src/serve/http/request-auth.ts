/**
 * Who is calling: with `--auth`, the tenant and scopes of the API key in `Authorization: Bearer`
 * (401 without a valid one, 403 outside its scopes); without, nobody in particular.
 */
import type { IncomingMessage } from "node:http";
import type { LiveApiKeys } from "../auth/api-key-file.js";
import type { ApiKeyScope } from "../auth/api-keys.js";
import type { ServiceMetrics } from "../observe/service-metrics.js";
import { HttpError } from "./http-error.js";

export type Caller = { tenant: string; scopes: readonly ApiKeyScope[] } | undefined;

export class RequestAuth {
  constructor(
    private readonly keys: LiveApiKeys | undefined,
    private readonly metrics: ServiceMetrics,
  ) {}

  /** The caller, checked for `scope` (undefined: any valid key); throws the 401/403 to answer. */
  caller(req: IncomingMessage, scope: ApiKeyScope | undefined): Caller {
    if (this.keys === undefined) return undefined;
    const header = req.headers.authorization;
    const presented = header === undefined ? undefined : /^Bearer +(\S+) *$/i.exec(header)?.[1];
    const entry = presented === undefined ? undefined : this.keys.current.verify(presented);
    if (entry === undefined) {
      this.metrics.authRefusals.inc({ status: "401" });
      throw new HttpError(
        401,
        header === undefined
          ? "no credentials: send Authorization: Bearer <key>"
          : "the key in Authorization is not valid (unknown, malformed or revoked)",
        {},
        { "www-authenticate": 'Bearer realm="keyspread"' },
      );
    }
    if (scope !== undefined && !entry.scopes.includes(scope)) {
      this.metrics.authRefusals.inc({ status: "403" });
      throw new HttpError(
        403,
        `this key (${entry.id}) lacks the "${scope}" scope; it has: ${entry.scopes.join(", ")}`,
      );
    }
    return { tenant: entry.tenant, scopes: entry.scopes };
  }
}
