import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileTemplate, scramble } from "./template.js";

describe("compileTemplate", () => {
  it("pads, divides and takes remainders of the entity index", () => {
    expect(compileTemplate("acme-{i:06}", "id")(42)).toBe("acme-000042");
    expect(compileTemplate("farm_{i/50:04}#s{i%50:02}", "id")(1234)).toBe("farm_0024#s34");
    expect(compileTemplate("plain", "id")(7)).toBe("plain");
  });

  it("scrambles into fixed-width hex ids that stay distinct", () => {
    const hex = compileTemplate("{hex8:i}", "id");
    expect(hex(1)).toMatch(/^[0-9a-f]{8}$/);
    fc.assert(
      fc.property(fc.nat(2 ** 32 - 1), fc.nat(2 ** 32 - 1), (a, b) => a === b || scramble(a) !== scramble(b)),
    );
  });

  it("rejects what it cannot read, naming the field", () => {
    expect(() => compileTemplate("x{j}", "deviceID")).toThrow(
      expect.objectContaining({ name: "TemplateSyntaxError", field: "deviceID", template: "x{j}" }),
    );
    expect(() => compileTemplate("{i/0}", "f")).toThrow(
      expect.objectContaining({ name: "TemplatePlaceholderError", field: "f", placeholder: "{i/0}" }),
    );
    expect(() => compileTemplate("{hex9:i}", "f")).toThrow(
      expect.objectContaining({ field: "f", placeholder: "{hex9:i}", allowed: "1 to 8 hex digits" }),
    );
  });
});
