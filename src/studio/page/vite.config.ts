/**
 * The studio's static build (`npm run build` runs it after tsc): src/studio bundled into
 * dist/studio-page with relative paths, so any static host (or `keyspread studio`) serves it. Two seams
 * keep `node:` modules out: the digests and the heatmap page's packing resolve to their browser
 * files. Anything else reaching for a `node:` module fails the build instead of being polyfilled.
 */
import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

const BROWSER_SEAMS: Record<string, string> = {
  "/keys/hash/digest.js": "../../keys/hash/digest-browser.ts",
  "/viz/render/packed-data.js": "../../viz/render/packed-data-browser.ts",
};

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

function browserSeams(): Plugin {
  return {
    name: "keyspread-browser-seams",
    enforce: "pre",
    async resolveId(source, importer, options) {
      if (source.startsWith("node:")) throw new Error(`${importer ?? "?"} imports ${source}: not in a page`);
      if (!importer) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      if (!resolved) return null;
      const path = resolved.id.replace(/\.ts$/, ".js");
      const seam = Object.keys(BROWSER_SEAMS).find((suffix) => path.endsWith(suffix));
      return seam ? here(BROWSER_SEAMS[seam]!) : null;
    },
  };
}

export default defineConfig({
  root: here("."),
  base: "./",
  logLevel: "warn",
  plugins: [browserSeams()],
  worker: { format: "es", plugins: () => [browserSeams()] },
  build: {
    outDir: here("../../../dist/studio-page"),
    emptyOutDir: true,
    chunkSizeWarningLimit: 2048,
    // Not minified: the heatmap page inlines shared functions by their source text and names
    // (src/viz/render/html-client.ts), which renamed identifiers would break.
    minify: false,
    rolldownOptions: { checks: { pluginTimings: false } },
  },
});
