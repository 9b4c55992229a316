import { describe, expect, it } from "vitest";
import { decodeLoggedRequest, encodeLoggedRequest } from "./logged-request.js";

describe("logged request", () => {
  it("decodes what it encoded: format, tenant, Idempotency-Key and body", () => {
    const request = {
      format: "json" as const,
      tenant: "acme",
      idempotency: { key: "acme\nk1", fingerprint: "f", accepted: 2, atMs: 1 },
      body: Buffer.from("[]"),
    };
    expect(decodeLoggedRequest(encodeLoggedRequest(request))).toEqual(request);
  });

  it.each([0, 1, 3])("refuses a payload of version %i (the caller dead-letters it)", (version) => {
    const payload = Buffer.concat([Buffer.from([version]), Buffer.from('{"tenant":"t"}')]);
    expect(() => decodeLoggedRequest(payload)).toThrow(`unknown version ${version}`);
  });
});
