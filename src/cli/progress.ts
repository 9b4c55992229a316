/** A running row count with its rate on stderr, drawn only on a terminal (quiet in pipes and CI). */
import { SingleBar } from "cli-progress";

export interface CounterBar {
  update: (rows: number) => void;
  stop: () => void;
}

export function counterBar(label: string): CounterBar {
  if (!process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new SingleBar({ format: `${label} | {value} rows | {rate} rows/s`, stream: process.stderr });
  const started = performance.now();
  let running = false;
  return {
    update(rows) {
      const rate = Math.round(rows / ((performance.now() - started) / 1000));
      if (!running) bar.start(0, rows, { rate });
      running = true;
      bar.update(rows, { rate });
    },
    stop: () => {
      if (running) bar.stop();
      running = false;
    },
  };
}
