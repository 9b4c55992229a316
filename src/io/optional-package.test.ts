import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  importOptionalPackage,
  MissingPackageError,
  OPTIONAL_PACKAGES,
  type OptionalPackage,
} from "./optional-package.js";

/** The error Node's `import()` rejects with when `name` is not installed (its exact wording). */
function notInstalled(name: string): Error {
  return Object.assign(new Error(`Cannot find package '${name}' imported from /app/dist/store/open.js`), {
    code: "ERR_MODULE_NOT_FOUND",
  });
}

const packageNames = Object.keys(OPTIONAL_PACKAGES) as OptionalPackage[];

describe("importOptionalPackage", () => {
  it("gives the module when the package loads", async () => {
    const module = { Bigtable: class {} };
    await expect(importOptionalPackage("@google-cloud/bigtable", async () => module)).resolves.toBe(module);
  });

  it("names the missing package, what needs it and the install command", async () => {
    for (const name of packageNames) {
      const failure = importOptionalPackage(name, () => Promise.reject(notInstalled(name)));
      await expect(failure).rejects.toBeInstanceOf(MissingPackageError);
      await expect(failure).rejects.toMatchObject({
        packageName: name,
        installCommand: `npm install ${name}`,
        cause: { code: "ERR_MODULE_NOT_FOUND" },
      });
      const message = ((await failure.catch((error: unknown) => error)) as Error).message;
      expect(message).toContain(OPTIONAL_PACKAGES[name]);
      expect(message).toContain(`npm install ${name}`);
    }
  });

  it("passes on, unchanged, any other failure: another package missing, or the package failing as it loads", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...packageNames),
        fc.oneof(
          fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/).map(notInstalled),
          fc.constant(new TypeError("grpc: native binding failed")),
          fc.constant(
            Object.assign(new Error("Cannot find module './x.js'"), { code: "ERR_MODULE_NOT_FOUND" }),
          ),
        ),
        async (name, error) => {
          fc.pre(!error.message.includes(`'${name}'`));
          await expect(importOptionalPackage(name, () => Promise.reject(error))).rejects.toBe(error);
        },
      ),
    );
  });
});
