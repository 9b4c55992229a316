/**
 * Loaded with `node --import` (through NODE_OPTIONS) by the Node 24 test run: every module of the
 * repository's `@google-cloud/bigtable` (6.x, what Node 20 gets) resolves to the 7.x client that
 * scripts/node24.sh installed into .node24 instead, for vitest (which imports the package by path)
 * and for the CLI processes the tests start (which import it by name) alike.
 */
import { realpathSync } from "node:fs";
import { registerHooks } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = new URL("..", import.meta.url);
// Real path: node_modules may be a symbolic link, and Node resolves modules to real paths.
const installed = `${pathToFileURL(realpathSync(fileURLToPath(new URL("node_modules/@google-cloud/bigtable", root))))}/`;
const replacement = new URL(".node24/client/node_modules/@google-cloud/bigtable/", root).href;

registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    return resolved.url.startsWith(installed)
      ? { ...resolved, url: replacement + resolved.url.slice(installed.length) }
      : resolved;
  },
});
