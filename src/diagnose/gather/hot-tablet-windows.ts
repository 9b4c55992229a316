/**
 * The requests a look-back window takes: ListHotTablets answers for at most 48 hours per request,
 * within the last 14 days (Google, "Hot tablets", https://cloud.google.com/bigtable/docs/hot-tablets).
 * Pure.
 */
export const MAX_REQUEST_WINDOW_S = 48 * 3600;
export const MAX_LOOK_BACK_S = 14 * 86_400;

export interface TimeWindow {
  start: Date;
  end: Date;
}

/** `[now − sinceS, now]` cut into request windows of at most 48 h, oldest first. */
export function hotTabletWindows(sinceS: number, now: Date): TimeWindow[] {
  if (!(sinceS > 0 && sinceS <= MAX_LOOK_BACK_S))
    throw new RangeError(
      `--since is ${sinceS} s; allowed: more than 0 and at most 14 days (Bigtable keeps hot tablets 14 days)`,
    );
  const windows: TimeWindow[] = [];
  const endMs = now.getTime();
  for (let startMs = endMs - sinceS * 1000; startMs < endMs; startMs += MAX_REQUEST_WINDOW_S * 1000)
    windows.push({
      start: new Date(startMs),
      end: new Date(Math.min(endMs, startMs + MAX_REQUEST_WINDOW_S * 1000)),
    });
  return windows;
}
