/**
 * The split decision, taken every split check: a tablet splits when it carried more operations or
 * CPU than the load thresholds since its last check (at the point that halves its cost), or holds
 * more than the size threshold (at the point that halves its bytes). `TabletMap.split` carries the
 * splits out.
 *
 * A check reads only the tablets that could split: those whose static load could pass a load
 * threshold at its channels' peaks (watched), those dynamic load touched, and those whose bytes may
 * have reached the size threshold (each tablet is queued for when that can first happen at its peak
 * write rate). Any other tablet's load since its last check averages at most its peak static rate,
 * below both thresholds, and its bytes are below the size threshold: checking it changes nothing.
 */
import FlatQueue from "flatqueue";
import type { TabletSettings } from "../cluster/model.js";
import { COST, RANGE_READS, STORED, type Tablet, type TabletSplit, WRITES } from "../cluster/tablets.js";
import type { SplitLayers } from "../load/load.js";
import { findSplitPoint } from "../load/split-point.js";
import type { TabletLoad } from "./tablet-load.js";

/** A load split that found no split point is tried again after this long. */
const SPLIT_RETRY_S = 60;
/**
 * A due time is a sum of floating-point seconds and may land a hair after the check it belongs to;
 * a tablet due within this much after a check is checked then (early is harmless: the check reads
 * its bytes again and queues it anew).
 */
const DUE_ROUNDING_S = 1e-6;

/** One tablet's readings at a check, and what they decide. */
interface Assessment {
  split: TabletSplit | null;
  /** Operations, cost and stored bytes on its odometer. */
  ops: number;
  cost: number;
  stored: number;
  /** A load or size split was due but no key splits the tablet. */
  noLoadPoint: boolean;
  noSizePoint: boolean;
}

export class SplitCheck {
  private readonly loadWatch = new Set<Tablet>();
  private readonly sizeDue = new FlatQueue<Tablet>();

  constructor(
    private readonly load: TabletLoad,
    private readonly settings: TabletSettings,
  ) {
    for (const tablet of load.tablets.tablets) this.watch(tablet);
  }

  /** Splits the tablets the check finds hot or large; returns the splits made. */
  run(nowS: number): TabletSplit[] {
    const splits: TabletSplit[] = [];
    for (const tablet of this.candidates(nowS)) {
      const split = this.decide(tablet, nowS);
      if (split) splits.push(split);
    }
    this.carryOut(splits, nowS);
    return splits;
  }

  /** The tablets that could split at `nowS`: watched, touched, or due a size check. */
  candidates(nowS: number): Tablet[] {
    const checked = new Set([...this.loadWatch, ...this.load.takeTouched()]);
    const dueBy = nowS + DUE_ROUNDING_S;
    for (
      let dueS = this.sizeDue.peekValue();
      dueS !== undefined && dueS <= dueBy;
      dueS = this.sizeDue.peekValue()
    ) {
      const due = this.sizeDue.pop();
      if (due === undefined) break;
      // A tablet is queued again when its due time changes; only its latest entry counts.
      if (due.sizeDueS <= dueBy) checked.add(due);
    }
    return [...checked].filter((tablet) => tablet.alive);
  }

  /** Whether and where one tablet splits; reads its load since its last check and starts the next. */
  decide(tablet: Tablet, nowS: number): TabletSplit | null {
    const assessment = this.assess(tablet, nowS);
    tablet.atCheck = assessment.ops;
    tablet.atCheckCost = assessment.cost;
    tablet.checkedS = nowS;
    if (assessment.noLoadPoint) tablet.loadRetryS = nowS + SPLIT_RETRY_S;
    if (assessment.split) return assessment.split;
    if (assessment.noSizePoint) tablet.sizeRetryBytes = assessment.stored * 2;
    this.scheduleSize(tablet);
    return null;
  }

  /** Where the tablet would split at `nowS` on its load since its last check (null: it would not); changes no reading. */
  wouldSplit(tablet: Tablet, nowS: number): TabletSplit | null {
    return this.assess(tablet, nowS).split;
  }

  /**
   * The tablet's readings at `nowS`, and its split: a load split when it was hot since its last check
   * (unless a load split found no point lately), else a size split when it holds more than the size
   * threshold; `noLoadPoint`/`noSizePoint` when a split was due but no key splits it.
   */
  private assess(tablet: Tablet, nowS: number): Assessment {
    const { load, settings } = this;
    load.sync(tablet);
    const sinceS = nowS - tablet.checkedS;
    const ops = load.read(tablet, WRITES) + load.read(tablet, RANGE_READS);
    const cost = load.read(tablet, COST);
    const stored = load.read(tablet, STORED);
    const assessment: Assessment = { split: null, ops, cost, stored, noLoadPoint: false, noSizePoint: false };
    const hot =
      sinceS > 0 &&
      ((ops - tablet.atCheck) / sinceS > settings.splitOpsPerS ||
        (cost - tablet.atCheckCost) / sinceS > settings.splitCpuShare);
    const { tablets } = load;
    const end = tablets.end(tablets.find(tablet.start));
    let layers: SplitLayers | undefined;
    const where = () => {
      layers ??= load.layers(tablet.start, end);
      return layers;
    };
    if (hot && nowS >= tablet.loadRetryS) {
      const point = findSplitPoint(tablet.start, end, where().load, where());
      if (point) return { ...assessment, split: { tablet, point, reason: "load" } };
      assessment.noLoadPoint = true;
    }
    if (stored > Math.max(settings.splitBytes, tablet.sizeRetryBytes)) {
      const point = findSplitPoint(tablet.start, end, where().bytes, where());
      if (point) return { ...assessment, split: { tablet, point, reason: "size" } };
      assessment.noSizePoint = true;
    }
    return assessment;
  }

  /** Splits the tablets and sets both halves' static rates and watches. */
  carryOut(splits: readonly TabletSplit[], nowS: number): void {
    const { tablets } = this.load;
    const rights = tablets.split(splits, nowS);
    splits.forEach(({ tablet }, k) => {
      const right = rights[k]!;
      right.checkedS = nowS;
      this.setRates(tablet, right.start);
      this.setRates(right, tablets.end(tablets.find(right.start)));
    });
  }

  /** After a merge: the tablet merged away is no longer watched, and the joined one is watched as its new span deserves. */
  merged(joined: Tablet, gone: Tablet): void {
    this.loadWatch.delete(gone);
    this.watch(joined);
  }

  private setRates(tablet: Tablet, end: Buffer | null): void {
    this.load.setRates(tablet, end);
    this.watch(tablet);
  }

  /** Watches a tablet for load splits if its static load could pass a threshold, and queues its next size check. */
  private watch(tablet: Tablet): void {
    const { load, settings } = this;
    const hot =
      load.peakRate(tablet, WRITES, RANGE_READS) > settings.splitOpsPerS ||
      load.peakRate(tablet, COST) > settings.splitCpuShare;
    if (hot) this.loadWatch.add(tablet);
    else this.loadWatch.delete(tablet);
    this.scheduleSize(tablet);
  }

  /**
   * Queues the tablet for when its bytes can first reach the size threshold at its peak static write
   * rate — at once when they already have (a split's half holding a burst's bytes), written to or not.
   */
  private scheduleSize(tablet: Tablet): void {
    const missing =
      Math.max(this.settings.splitBytes, tablet.sizeRetryBytes) - this.load.read(tablet, STORED);
    const peakStored = this.load.peakRate(tablet, STORED);
    if (missing > 0 && peakStored <= 0) {
      tablet.sizeDueS = Number.POSITIVE_INFINITY;
      return;
    }
    tablet.sizeDueS = this.load.nowS + (missing > 0 ? missing / peakStored : 0);
    this.sizeDue.push(tablet, tablet.sizeDueS);
  }
}
