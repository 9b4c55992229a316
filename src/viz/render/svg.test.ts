import { describe, expect, it } from "vitest";
import { fixtureMatrix } from "./render.fixture.js";
import { renderSvg } from "./svg.js";

describe("renderSvg", () => {
  const svg = renderSvg(fixtureMatrix(), { metric: "writes", title: "writes <design A>" });

  it("is one SVG document with the cells embedded and text as text", () => {
    expect(svg.startsWith("<svg ")).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(svg).toMatch(/<image [^>]*href="data:image\/png;base64,/);
    expect(svg).toContain(">writes &#60;design A&#62;</text>");
    expect(svg).toContain(">00/dev1</text>");
    expect(svg).toContain(">10s</text>");
  });

  it("hatches the cells of nodes above 90 % CPU and says so in the legend", () => {
    expect(svg.match(/fill="url\(#hot\)"/g)?.length).toBe(2);
    expect(svg).toContain("node CPU &#62;= 90%");
  });
});
