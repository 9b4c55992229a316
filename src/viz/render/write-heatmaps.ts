/**
 * Heatmap files on disk (the I/O edge of src/viz): one image per design plus a side-by-side HTML
 * page, for `keyspread simulate --out DIR` and `keyspread lab`; or one file whose extension picks
 * the format, for `keyspread heatmap --out`. Every image of a run shares one colour scale, as the
 * page's panels do. Files are written to a temporary name and renamed, so none is ever left
 * half-written.
 */
import { mkdir } from "node:fs/promises";
import { extname, join } from "node:path";
import { writeFileAtomically } from "../../io/write-file-atomically.js";
import type { KeySchema } from "../../keys/types.js";
import type { LoadStep } from "../../load/key-load.js";
import type { HeatMatrix, HeatMatrixOptions } from "../matrix/heat-matrix.js";
import { matrixFromSteps } from "../matrix/steps-matrix.js";
import { detectPatterns } from "../patterns/detect-patterns.js";
import type { PatternFinding } from "../patterns/finding.js";
import { sharedScale } from "./color-scale.js";
import { type HeatmapHtmlOptions, renderHeatmapHtml } from "./html.js";
import type { HeatmapImageOptions } from "./layout.js";
import { renderHeatmapPng } from "./png.js";
import { renderHeatmapSvg } from "./svg.js";

export type HeatmapImageFormat = "png" | "svg";
export type HeatmapFormat = HeatmapImageFormat | "html";

export interface WriteHeatmapsOptions extends HeatmapImageOptions, HeatMatrixOptions, HeatmapHtmlOptions {
  /** Image formats written per design; default ["png"]. */
  formats?: HeatmapImageFormat[];
  /** File name of the side-by-side page; default `heatmaps.html`. */
  htmlName?: string;
}

export interface WrittenDesignHeatmap {
  name: string;
  notes?: readonly string[];
  matrix: HeatMatrix;
  patterns: PatternFinding[];
  /** Paths of this design's images. */
  images: string[];
}

export interface WrittenHeatmaps {
  designs: WrittenDesignHeatmap[];
  /** Path of the side-by-side HTML page. */
  html: string;
}

/** A design name as a file-name part: `Salted ×16 (md5)` → `salted-16-md5`. */
export function fileSlug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "design"
  );
}

export function heatmapFormatOf(path: string): HeatmapFormat {
  const extension = extname(path).toLowerCase().slice(1);
  if (extension === "png" || extension === "svg" || extension === "html") return extension;
  throw new Error(`output "${path}": expected a file ending in .png, .svg or .html`);
}

/** Writes one heatmap of `matrix` to `path`, in the format its extension names. */
export async function writeHeatmapFile(
  matrix: HeatMatrix,
  path: string,
  options: HeatmapImageOptions & HeatmapHtmlOptions & { name?: string; patterns?: PatternFinding[] } = {},
): Promise<void> {
  const format = heatmapFormatOf(path);
  const content =
    format === "png"
      ? renderHeatmapPng(matrix, options)
      : format === "svg"
        ? renderHeatmapSvg(matrix, options)
        : renderHeatmapHtml(
            [{ name: options.name ?? "heatmap", matrix, patterns: options.patterns }],
            options,
          );
  await writeFileAtomically(path, content);
}

/** One image per design (`heatmap-<name>.png`/`.svg`) and one page with all designs side by side. */
export async function writeHeatmaps(
  designs: readonly {
    name: string;
    steps: readonly LoadStep[];
    notes?: readonly string[];
    /** The design's key schema: its rows are named by bucket and fields (the matrix is the same). */
    naming?: KeySchema;
  }[],
  outDir: string,
  options: WriteHeatmapsOptions = {},
): Promise<WrittenHeatmaps> {
  if (designs.length === 0) throw new Error("designs: expected at least one design");
  const slugs = designs.map((design) => fileSlug(design.name));
  const clash = slugs.find((slug, index) => slugs.indexOf(slug) !== index);
  if (clash) throw new Error(`designs: two names give the same file name "${clash}"; rename one`);
  const formats = options.formats ?? ["png"];
  await mkdir(outDir, { recursive: true });
  const metric = options.metric ?? "ops";
  const matrices = designs.map((design) =>
    matrixFromSteps(design.steps, design.naming ? { ...options, naming: design.naming } : options),
  );
  // One colour scale for every image of the run, as on the page: the fix must not look as hot as the incident.
  const fixedScale = options.fixedScale ?? sharedScale(matrices, metric, options);
  const shared = designs.length > 1 ? `, one colour scale for all ${designs.length}` : "";
  const written: WrittenDesignHeatmap[] = [];
  for (const [index, design] of designs.entries()) {
    const matrix = matrices[index]!;
    const patterns = detectPatterns(matrix, options.metric);
    const images: string[] = [];
    for (const format of formats) {
      const path = join(outDir, `heatmap-${slugs[index]}.${format}`);
      await writeHeatmapFile(matrix, path, {
        ...options,
        fixedScale,
        title: options.title ?? `${design.name}: ${metric}${shared}`,
      });
      images.push(path);
    }
    written.push({
      name: design.name,
      matrix,
      patterns,
      images,
      ...(design.notes ? { notes: design.notes } : {}),
    });
  }
  const html = join(outDir, options.htmlName ?? "heatmaps.html");
  await writeFileAtomically(html, renderHeatmapHtml(written, options));
  return { designs: written, html };
}
