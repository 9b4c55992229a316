import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import type { LoadStep } from "../../load/key-load.js";
import { tempDirForTests } from "../temp-dir.fixture.js";
import { sharedScale } from "./color-scale.js";
import { renderHeatmapHtml } from "./html.js";
import { heatmapLayout } from "./layout.js";
import { heatmapPageData } from "./render.fixture.js";
import { fileSlug, heatmapFormatOf, writeHeatmaps } from "./write-heatmaps.js";

function steps(hotRange: number): LoadStep[] {
  return Array.from({ length: 30 }, (_, t) => ({
    t,
    durationS: 1,
    ranges: Array.from({ length: 16 }, (_, index) => ({
      start: index === 0 ? Buffer.alloc(0) : Buffer.from(`k${String(index).padStart(2, "0")}`),
      end: index === 15 ? null : Buffer.from(`k${String(index + 1).padStart(2, "0")}`),
      readsPerS: 100,
      writesPerS: index === hotRange ? 40_000 : 1000,
      scannedRowsPerS: 0,
      bytesPerS: 0,
    })),
  }));
}

const dir = tempDirForTests("keyspread-heatmaps-");

describe("writeHeatmaps", () => {
  it("writes one image per design and a side-by-side page, and reports the patterns", async () => {
    const result = await writeHeatmaps(
      [
        { name: "Unsalted", steps: steps(7) },
        { name: "Salted ×16", steps: steps(-1) },
      ],
      join(dir(), "out"),
      { formats: ["png", "svg"] },
    );
    expect((await readdir(join(dir(), "out"))).sort()).toEqual([
      "heatmap-salted-16.png",
      "heatmap-salted-16.svg",
      "heatmap-unsalted.png",
      "heatmap-unsalted.svg",
      "heatmaps.html",
    ]);
    expect(result.designs.map((design) => design.patterns.map((pattern) => pattern.kind))).toEqual([
      ["hot-band"],
      ["healthy"],
    ]);
    expect(PNG.sync.read(await readFile(result.designs[0]!.images[0]!)).width).toBe(1000);
    const page = heatmapPageData(await readFile(result.html, "utf8"));
    expect(page.designs.map((design) => design.name)).toEqual(["Unsalted", "Salted ×16"]);
  });

  it("draws every image of a run on one colour scale, so the fix does not look as hot as the incident", async () => {
    const result = await writeHeatmaps(
      [
        { name: "incident", steps: steps(7) },
        { name: "fix", steps: steps(-1) },
      ],
      join(dir(), "scale"),
    );
    const whiteCells = async (index: number) => {
      const design = result.designs[index]!;
      const image = PNG.sync.read(await readFile(design.images[0]!));
      const { plot } = heatmapLayout(design.matrix, "ops", sharedScale([design.matrix], "ops"));
      let white = 0;
      for (let y = plot.y; y < plot.y + plot.height; y++) {
        for (let x = plot.x; x < plot.x + plot.width; x++) {
          const offset = (y * image.width + x) * 4;
          if (image.data[offset]! + image.data[offset + 1]! + image.data[offset + 2]! === 765) white++;
        }
      }
      return white;
    };
    expect(await whiteCells(0)).toBeGreaterThan(0);
    // Drawn alone, the fix's busiest cells would be white too.
    expect(await whiteCells(1)).toBe(0);
  });

  it("refuses names that collide as file names, and unknown extensions", async () => {
    await expect(
      writeHeatmaps(
        [
          { name: "a b", steps: steps(1) },
          { name: "A-B", steps: steps(2) },
        ],
        dir(),
      ),
    ).rejects.toThrow('two names give the same file name "a-b"');
    expect(() => heatmapFormatOf("heat.jpg")).toThrow(
      'output "heat.jpg": expected a file ending in .png, .svg or .html',
    );
    expect(fileSlug("Salted ×16 (md5)")).toBe("salted-16-md5");
  });

  it("keeps a page of eight designs of 1000 rows (the lab's size) under 2 MB", () => {
    const rows = 1000;
    const columns = 60;
    // A simulation's cells take a few levels each (ranges share load evenly; a step's load is steady).
    const levels = (seed: number) =>
      Float64Array.from({ length: rows * columns }, (_, cell) => ((Math.floor(cell / 7) * seed) % 97) * 12.5);
    const designs = Array.from({ length: 8 }, (_, design) => ({
      name: `design ${design}`,
      patterns: [],
      matrix: {
        time: { startS: 0, columnS: 15, columns, epoch: false },
        rows: Array.from({ length: rows }, (_, row) => ({
          start: Buffer.from(
            `${String(row % 64).padStart(2, "0")}#acme-${String(row * 97).padStart(6, "0")}`,
          ),
          end: null,
          labels: [`bucket ${row % 64}`],
          keyShare: 1 / rows,
        })),
        values: {
          ops: levels(design + 3),
          reads: levels(design + 5),
          writes: levels(design + 7),
          bytes: levels(11),
          cpu: levels(2),
        },
        barrierLevel: 0,
        labelSeparator: "#",
      },
    }));
    const html = renderHeatmapHtml(designs);
    expect(Buffer.byteLength(html)).toBeLessThan(2_000_000);
    expect(heatmapPageData(html).designs).toHaveLength(8);
  });
});
