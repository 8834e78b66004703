/**
 * Where the skew chart's bars, reference marks and axis ticks go, in SVG user
 * units: plain arithmetic, so the component only draws.
 */

import type { Bar } from "./skew";

/** The drawing area and the margins around the plot. */
export interface Frame {
  readonly width: number;
  readonly height: number;
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

export interface BarShape {
  readonly bar: Bar;
  readonly x: number;
  readonly width: number;
  /** Top of the bar (mean records). */
  readonly y: number;
  readonly height: number;
  /** Where the predicted records mark sits; null without a prediction. */
  readonly expectedY: number | null;
  /** Where the group's busiest subtask reaches (equals `y` for a single subtask). */
  readonly maxY: number;
  /** Where the bar's centre is, for labels. */
  readonly centre: number;
}

/** The plot's bottom edge (zero records). */
export function baseline(frame: Frame): number {
  return frame.height - frame.bottom;
}

/** The y of `value` on an axis from 0 to `top`. */
export function yOf(value: number, top: number, frame: Frame): number {
  const plot = frame.height - frame.top - frame.bottom;
  const clamped = Math.min(Math.max(value, 0), top);
  return baseline(frame) - (top > 0 ? (clamped / top) * plot : 0);
}

/** One shape per bar, side by side across the plot with a gap of a fifth of a slot. */
export function barShapes(bars: readonly Bar[], top: number, frame: Frame): BarShape[] {
  const plotWidth = frame.width - frame.left - frame.right;
  const slot = bars.length === 0 ? 0 : plotWidth / bars.length;
  const gap = slot >= 4 ? Math.min(slot / 5, 8) : 0;
  return bars.map((bar, index) => {
    const x = frame.left + index * slot + gap / 2;
    const y = yOf(bar.records, top, frame);
    return {
      bar,
      x,
      width: Math.max(slot - gap, 0.5),
      y,
      height: baseline(frame) - y,
      expectedY: bar.expected === null ? null : yOf(bar.expected, top, frame),
      maxY: yOf(bar.max, top, frame),
      centre: x + (slot - gap) / 2,
    };
  });
}

/** Which bars get an x-axis label: every one when they fit, else evenly spaced ones. */
export function labelEvery(barCount: number, plotWidth: number, labelWidth = 28): number {
  if (barCount === 0) {
    return 1;
  }
  const fit = Math.max(1, Math.floor(plotWidth / labelWidth));
  return Math.max(1, Math.ceil(barCount / fit));
}
