/**
 * A run's outcome as the worker posts it to the page: each file as a Blob, made on the worker's
 * thread. A Blob crosses to the page as a handle, so the page's thread neither copies the files'
 * text out of the message nor encodes it into Blobs of its own; it offers the downloads and shows
 * the heatmap page from those Blobs' URLs. Copying and encoding the text on the page's thread froze
 * it for seconds on the fleet (heatmaps.html and report.html run to megabytes). The heatmap page
 * goes once, as the file heatmaps.html, not again beside it.
 */
import type { StudioInvalid, StudioJudged, StudioOutcome } from "../studio-run.js";

export type PostedJudged = Omit<StudioJudged, "heatmapsHtml" | "files"> & {
  /** What `lab --out` writes (the heatmap images aside), plus the scenario as run; by file name. */
  files: Record<string, Blob>;
};

export type PostedOutcome = StudioInvalid | PostedJudged;

/** The media type a download or the heatmap frame gets, by the file's extension. */
export function mediaType(name: string): string {
  if (name.endsWith(".json")) return "application/json";
  if (name.endsWith(".html")) return "text/html";
  return "text/plain";
}

export function postedOutcome(outcome: StudioOutcome): PostedOutcome {
  if (outcome.kind === "invalid") return outcome;
  const { heatmapsHtml: _shownFromItsFile, files, ...shown } = outcome;
  return {
    ...shown,
    files: Object.fromEntries(
      Object.entries(files).map(([name, text]) => [name, new Blob([text], { type: mediaType(name) })]),
    ),
  };
}
