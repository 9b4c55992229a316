/**
 * A run's outcome as the worker posts it to the page, in two messages: first what the page shows
 * (the verdict, sizing, comparison, CPU chart), then the files as Blobs, made on the worker's thread.
 * A Blob crosses to the page as a handle, so the page's thread neither copies the files' text out of
 * a message nor encodes it into Blobs of its own; it offers the downloads and shows the heatmap page
 * from those Blobs' URLs. Copying and encoding the text on the page's thread froze it for seconds on
 * the fleet (heatmaps.html and report.html run to megabytes), and making the Blobs takes the worker
 * seconds too, so the verdict goes first. The heatmap page goes once, as the file heatmaps.html.
 */
import type { StudioInvalid, StudioJudged, StudioOutcome } from "../studio-run.js";

export type ShownJudged = Omit<StudioJudged, "heatmapsHtml" | "files">;

export type ShownOutcome = StudioInvalid | ShownJudged;

/** The media type a download or the heatmap frame gets, by the file's extension. */
export function mediaType(name: string): string {
  if (name.endsWith(".json")) return "application/json";
  if (name.endsWith(".html")) return "text/html";
  return "text/plain";
}

export function shownOutcome(outcome: StudioOutcome): ShownOutcome {
  if (outcome.kind === "invalid") return outcome;
  const { heatmapsHtml: _shownFromItsFile, files: _postedAfter, ...shown } = outcome;
  return shown;
}

/** Each file as a Blob of its text (UTF-8), typed by its extension. */
export function fileBlobs(files: Record<string, string>): Record<string, Blob> {
  return Object.fromEntries(
    Object.entries(files).map(([name, text]) => [name, new Blob([text], { type: mediaType(name) })]),
  );
}
