/**
 * `keyspread studio [scenario]`: serves the studio (the static build in dist/studio-page) on a local
 * port and prints its address, with the scenario in the link when a file is given (the page reads
 * it from the fragment: nothing else leaves this machine). `--open` opens it in the desktop's browser.
 * Prints one JSON line `{"url": …}` when `--json`, for scripts and tests. Stops on SIGINT/SIGTERM.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "commander";
import { shareFragment } from "../../studio/share-link.js";
import { guarded, parsePositiveInt, write } from "../shared/io.js";

const PAGE = fileURLToPath(new URL("../../studio-page/", import.meta.url));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

/**
 * Cross-origin isolation: the page may then share memory with its worker (see src/studio/page/wanted-run.ts),
 * so a cancel stops the run and keeps the worker's memo. The page loads nothing from elsewhere. The
 * static build declares the same for hosts that read src/studio/page/public/_headers.
 */
export const CROSS_ORIGIN_ISOLATED = {
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-embedder-policy": "require-corp",
};

interface StudioOptions {
  port: number;
  host: string;
  open?: boolean;
  json?: boolean;
}

export function registerStudioCommands(program: Command): void {
  program
    .command("studio")
    .description(
      "serve the lab in the browser on a local port: edit a scenario, change its controls, and see the same verdict, sizing, heatmaps and multi-cluster answer as `keyspread lab` (the simulation runs in the page)",
    )
    .argument("[scenario]", "scenario file to open (default: the fleet incident)")
    .option("--port <n>", "port to listen on (0: any free port)", parsePortNumber, 4173)
    .option("--host <address>", "address to listen on", "127.0.0.1")
    .option("--open", "open the page in the desktop's browser")
    .option("--json", 'print {"url": …} as one JSON line instead of a sentence')
    .action(
      guarded(async (file: string | undefined, options: StudioOptions) => {
        const fragment =
          file === undefined ? "" : await shareFragment({ yaml: await readFile(file, "utf8"), controls: {} });
        const server = await serveStudio(options.host, options.port);
        const address = server.address();
        const port = typeof address === "object" && address ? address.port : options.port;
        const url = `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}/${fragment}`;
        await write(
          options.json ? `${JSON.stringify({ url })}\n` : `keyspread studio: ${url}\n(Ctrl-C stops it)\n`,
        );
        if (options.open) openInBrowser(url);
        await new Promise<void>((resolve) => {
          for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve());
        });
        await new Promise((resolve) => server.close(resolve));
      }),
    );
}

function parsePortNumber(text: string): number {
  return text === "0" ? 0 : parsePositiveInt(text);
}

/** A static server for the page's files, and nothing outside them. */
export async function serveStudio(host: string, port: number): Promise<Server> {
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? "/", "http://studio").pathname;
    const file = normalize(join(PAGE, decodeURIComponent(path === "/" ? "/index.html" : path)));
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    if (!file.startsWith(PAGE) || file.includes(`${sep}..${sep}`)) {
      response.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(file);
      response
        .writeHead(200, {
          "content-type": TYPES[extname(file)] ?? "application/octet-stream",
          "cache-control": "no-cache",
          ...CROSS_ORIGIN_ISOLATED,
        })
        .end(request.method === "HEAD" ? undefined : body);
    } catch {
      response.writeHead(404, { "content-type": "text/plain" }).end(`not found: ${path}\n`);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        error.code === "EADDRINUSE"
          ? new Error(`--port ${port}: in use on ${host}; choose another (or 0 for any free port)`)
          : error,
      ),
    );
    server.listen(port, host, resolve);
  });
  try {
    await readFile(join(PAGE, "index.html"));
  } catch {
    server.close();
    throw new Error(`the studio's page is not built (${PAGE}index.html missing): run \`npm run build\``);
  }
  return server;
}

/** The desktop's "open this URL" command; the page's address is printed either way. */
function openInBrowser(url: string): void {
  const command =
    process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  const child = spawn(command, [url], { stdio: "ignore", detached: true });
  child.on("error", () =>
    process.stderr.write(`keyspread: could not run ${command}; open ${url} yourself\n`),
  );
  child.unref();
}
