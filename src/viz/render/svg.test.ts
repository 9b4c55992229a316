import { describe, expect, it } from "vitest";
import { fixtureMatrix } from "./render.fixture.js";
import { laneColor } from "./saturation-lanes.js";
import { renderHeatmapSvg } from "./svg.js";

describe("renderHeatmapSvg", () => {
  const svg = renderHeatmapSvg(fixtureMatrix(), { metric: "writes", title: "writes <design A>" });

  it("is one SVG document with the cells embedded and text as text", () => {
    expect(svg.startsWith("<svg ")).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(svg).toMatch(/<image [^>]*href="data:image\/png;base64,/);
    expect(svg).toContain(">writes &#60;design A&#62;</text>");
    expect(svg).toContain(">00#dev1</text>");
    expect(svg).toContain(">10s</text>");
  });

  it("draws node saturation in lanes beside the plot and says so in the legend", () => {
    // One lane rect per row with a height, one per column; none over the cells.
    expect(svg.match(/<rect class="lane"/g)?.length).toBe(8 + 20);
    expect(svg).toContain(`fill="rgb(${laneColor(0.5).join(",")})"`);
    expect(svg).not.toContain("url(#hot)");
    expect(svg).toContain("node CPU &#62;= 90%");
  });
});
