/**
 * The query and path parameters of the device reads, each refused with a 400 naming it and what is
 * allowed: the body's `code` says `missing-parameter` or `invalid-parameter`, `parameter` which.
 */

import { POINT_LIMITS } from "../ingest/points/ingest-body.js";
import { HttpError } from "./http-error.js";
import type { Caller } from "./request-auth.js";

/** The tenant whose device namespace a read uses: the caller's, or with no auth the `tenant` parameter. */
export function readTenant(query: URLSearchParams, caller: Caller): string {
  const named = query.get("tenant");
  if (caller !== undefined) {
    if (named !== null && named !== caller.tenant) {
      throw new HttpError(
        403,
        `tenant=${JSON.stringify(named)}: these credentials are for tenant "${caller.tenant}" only`,
        { code: "other-tenant", parameter: "tenant" },
      );
    }
    return caller.tenant;
  }
  if (named === null) {
    throw new HttpError(
      400,
      "tenant is missing: device ids are per tenant; add ?tenant=…",
      missing("tenant"),
    );
  }
  if (!POINT_LIMITS.tenant.test(named)) {
    throw new HttpError(
      400,
      `tenant=${JSON.stringify(named.slice(0, 64))}: expected 1–64 letters, digits, ".", "_" or "-"`,
      invalid("tenant"),
    );
  }
  return named;
}

export function intParam(
  query: URLSearchParams,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const text = query.get(name);
  if (text === null) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new HttpError(
      400,
      `${name}=${JSON.stringify(text)}: expected an integer from ${min} to ${max}`,
      invalid(name),
    );
  }
  return value;
}

const MAX_TIME_MS = 9_999_999_999_999;

export function timeParam(query: URLSearchParams, name: string): number {
  const text = query.get(name);
  if (text === null) {
    throw new HttpError(400, `${name} is missing: give epoch milliseconds or ISO 8601 time`, missing(name));
  }
  const value = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  // Keys hold millisecond timestamps up to 13 digits; a later time is a typo, not a query.
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_TIME_MS) {
    throw new HttpError(
      400,
      `${name}=${JSON.stringify(text)}: expected epoch milliseconds (0..${MAX_TIME_MS}) or ISO 8601 time`,
      invalid(name),
    );
  }
  return value;
}

export function deviceIdOf(segment: string): string {
  let deviceId: string;
  try {
    deviceId = decodeURIComponent(segment);
  } catch {
    throw new HttpError(
      400,
      `device id ${JSON.stringify(segment)} is not valid percent-encoding`,
      invalid("deviceId"),
    );
  }
  if (!deviceId.isWellFormed()) {
    throw new HttpError(400, "device id is not well-formed Unicode", invalid("deviceId"));
  }
  return deviceId;
}

function missing(parameter: string) {
  return { code: "missing-parameter", parameter };
}

function invalid(parameter: string) {
  return { code: "invalid-parameter", parameter };
}
