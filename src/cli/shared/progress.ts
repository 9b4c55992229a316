/** Progress on stderr, drawn only on a terminal (quiet in pipes and CI). */
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

export interface FractionBar {
  /** Shows `done` of `total` with the format's `{name}` fields from `payload`; starts on first call. */
  update: (done: number, total: number, payload?: Record<string, string | number>) => void;
  stop: () => void;
}

/** A bar towards a known total (simulated seconds, bytes of a file), drawn only on a terminal. */
export function fractionBar(format: string): FractionBar {
  if (!process.stderr.isTTY) return { update: () => {}, stop: () => {} };
  const bar = new SingleBar({ format: `${format} [{bar}] {percentage}%`, stream: process.stderr });
  let running = false;
  return {
    update(done, total, payload = {}) {
      if (!running) bar.start(total, done, payload);
      running = true;
      // The total may grow (e.g. a candidate re-run on more nodes joins the queue).
      if (total !== bar.getTotal()) bar.setTotal(total);
      bar.update(done, payload);
    },
    stop: () => {
      if (running) bar.stop();
      running = false;
    },
  };
}

export interface QueueProgress {
  name: string;
  /** 0-based position in the queue, and its length. */
  index: number;
  count: number;
  doneS: number;
  totalS: number;
}

/** One bar over a queue of simulations (designs, candidates), each `totalS` simulated seconds. */
export function simulationQueueBar(verb: string): {
  update: (progress: QueueProgress) => void;
  stop: () => void;
} {
  const bar = fractionBar(`${verb} {name} ({position}/{count})`);
  return {
    update: ({ name, index, count, doneS, totalS }) => {
      // Redrawing every simulated second would cost more than the step itself.
      if (doneS % 60 !== 0 && doneS < totalS) return;
      bar.update(index * totalS + doneS, count * totalS, { name, position: index + 1, count });
    },
    stop: bar.stop,
  };
}
