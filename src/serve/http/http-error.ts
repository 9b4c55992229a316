/** An HTTP answer other than success, thrown by a route and written by the service's error handler. */
import type { ServerResponse } from "node:http";

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** `Retry-After` for answers a client should simply retry in a moment (503, 409). */
export const RETRY_SOON = { "retry-after": "1" };

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
