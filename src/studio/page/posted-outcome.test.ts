import { describe, expect, it } from "vitest";
import type { StudioInvalid, StudioJudged } from "../studio-run.js";
import { fileBlobs, mediaType, shownOutcome } from "./posted-outcome.js";

const judged: StudioJudged = {
  kind: "judged",
  scenario: "fleet",
  headline: { sizedBy: "cpu", cpuNodes: 12, storageNodes: 4, storedBytes: 1e12, plannedNodes: 12 },
  headlineLines: ["a", "b"],
  sizingLines: [],
  multiClusterLines: [],
  designs: [],
  heatmapsHtml: "<!doctype html><p>heatmaps é</p>",
  cpuChartSvg: "<svg></svg>",
  files: {
    "advice.json": '{"recommended": "é"}\n',
    "heatmaps.html": "<!doctype html><p>heatmaps é</p>",
    "scenario.yaml": "name: fleet\n",
  },
};

describe("the outcome the worker posts", () => {
  it("shows all of a judged run but its files, the heatmap page among them", () => {
    const { files: _, heatmapsHtml: _page, ...expected } = judged;
    expect(shownOutcome(judged)).toEqual(expected);
  });

  it("passes an invalid scenario's problems as they are", () => {
    const invalid: StudioInvalid = { kind: "invalid", problems: [{ message: "bad", line: 3 }] };
    expect(shownOutcome(invalid)).toBe(invalid);
  });

  it("posts each file as a Blob of its UTF-8 text, typed by its extension", async () => {
    const blobs = fileBlobs(judged.files);
    const texts = Object.fromEntries(
      await Promise.all(
        Object.entries(blobs).map(async ([name, blob]) => [
          name,
          { text: await blob.text(), type: blob.type },
        ]),
      ),
    );
    expect(texts).toEqual({
      "advice.json": { text: judged.files["advice.json"], type: "application/json" },
      "heatmaps.html": { text: judged.heatmapsHtml, type: "text/html" },
      "scenario.yaml": { text: judged.files["scenario.yaml"], type: "text/plain" },
    });
  });

  it("types a file by its extension", () => {
    expect(["a.json", "b.html", "c.yaml", "d.md"].map(mediaType)).toEqual([
      "application/json",
      "text/html",
      "text/plain",
      "text/plain",
    ]);
  });
});
