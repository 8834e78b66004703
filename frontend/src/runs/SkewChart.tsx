import { useState } from "react";

import type { RunVertex, Subtask } from "../api/runs";
import { barShapes, baseline, labelEvery, yOf, type BarShape, type Frame } from "./chart";
import { formatCompact, formatCount, formatShare } from "./format";
import type { VertexFacts } from "./planFacts";
import {
  bars,
  heatOf,
  niceScale,
  noVerdictText,
  skewVerdict,
  subtaskLoads,
  type LoadSummary,
  type Metric,
} from "./skew";

const FRAME: Frame = { width: 480, height: 170, left: 44, right: 8, top: 10, bottom: 22 };
const MAX_BARS = 128;
const VERDICTS = { none: "", even: "Even", mild: "Mild skew", skewed: "Skewed" } as const;

/**
 * Records per subtask as bars, with the share the plan predicts for each (its
 * key groups of the max parallelism behind a HASH edge, an even split
 * otherwise) as a dashed mark: a bar far above its mark is a hot subtask.
 */
export function SkewChart(props: {
  readonly vertex: RunVertex;
  readonly subtasks: readonly Subtask[];
  readonly facts: VertexFacts | undefined;
}) {
  const { vertex, subtasks, facts } = props;
  const isSource = facts?.isSource ?? vertex.recordsIn === 0;
  const [chosen, setMetric] = useState<Metric | null>(null);
  const metric = chosen ?? (isSource ? "out" : "in");
  const keyed = facts?.keyed ?? false;
  const summary = subtaskLoads(subtasks, {
    metric,
    reference: keyed ? "key-groups" : "even",
    maxParallelism: vertex.maxParallelism,
  });
  const shown = bars(summary.loads, MAX_BARS);
  const scale = niceScale(Math.max(0, ...shown.map((bar) => Math.max(bar.max, bar.expected ?? 0))));
  const shapes = barShapes(shown, scale.top, FRAME);
  const every = labelEvery(shapes.length, FRAME.width - FRAME.left - FRAME.right);
  return (
    <section className="skew" data-testid="skew-chart">
      <div className="skew__head">
        <h3>Records per subtask</h3>
        <span className="segmented" role="group" aria-label="Records counted">
          {(["in", "out"] as const).map((option) => (
            <button
              key={option}
              type="button"
              className={option === metric ? "is-active" : ""}
              onClick={() => {
                setMetric(option);
              }}
              data-testid={`skew-metric-${option}`}
            >
              {option}
            </button>
          ))}
        </span>
      </div>
      <SkewSummary summary={summary} keyed={keyed} />
      <svg
        className="skew__chart"
        viewBox={`0 0 ${FRAME.width} ${FRAME.height}`}
        role="img"
        aria-label={`Records ${metric} per subtask of ${vertex.name}`}
      >
        {scale.ticks.map((tick) => {
          const y = yOf(tick, scale.top, FRAME);
          return (
            <g key={tick} className="skew__tick">
              <line x1={FRAME.left} x2={FRAME.width - FRAME.right} y1={y} y2={y} />
              <text x={FRAME.left - 4} y={y + 3} textAnchor="end">
                {formatCompact(tick)}
              </text>
            </g>
          );
        })}
        {shapes.map((shape, index) => (
          <SkewBar
            key={shape.bar.first}
            shape={shape}
            label={index % every === 0}
            metric={metric}
          />
        ))}
        <line
          className="skew__axis"
          x1={FRAME.left}
          x2={FRAME.width - FRAME.right}
          y1={baseline(FRAME)}
          y2={baseline(FRAME)}
        />
      </svg>
      <p className="skew__legend muted">
        <span className="skew__legend-bar" /> records {metric}{" "}
        <span className="skew__legend-mark" />{" "}
        {keyed
          ? "predicted by key-group range (key groups ÷ max parallelism)"
          : "even share (the input is not keyed)"}
        {shown.length < subtasks.length &&
          ` · a bar per ${Math.ceil(subtasks.length / shown.length)} neighbouring subtasks (mean; ▾ busiest)`}
      </p>
    </section>
  );
}

function SkewSummary(props: { readonly summary: LoadSummary; readonly keyed: boolean }) {
  const { summary, keyed } = props;
  const verdict = skewVerdict(summary);
  if (verdict === "none") {
    return <p className="skew__summary muted">{noVerdictText(summary)}</p>;
  }
  const busiest = summary.loads.find((load) => load.subtask === summary.busiest);
  const share = summary.total === 0 ? 0 : summary.max / summary.total;
  const predicted = busiest === undefined ? "" : formatShare(busiest.expectedShare);
  return (
    <p
      className={`skew__summary skew__summary--${verdict}`}
      data-testid="skew-summary"
      data-verdict={verdict}
    >
      <strong>{VERDICTS[verdict]}</strong>
      {summary.partial && ` (judged on the ${summary.settledCount} finished subtasks)`}: subtask{" "}
      {summary.busiest} has {formatCount(summary.max)} of {formatCount(summary.total)} records (
      {formatShare(share)}; {keyed ? "its key groups predict" : "an even share is"} {predicted}),{" "}
      {summary.worstRatio?.toFixed(2)}× its prediction at worst.
    </p>
  );
}

function barTitle(shape: BarShape, metric: Metric): string {
  const { bar } = shape;
  const predicted =
    bar.expected === null ? "not judged yet" : `predicted ${formatCount(Math.round(bar.expected))}`;
  const ratio = bar.ratio === null ? "" : ` (${bar.ratio.toFixed(2)}×)`;
  if (bar.first === bar.last) {
    return `subtask ${bar.first}: ${formatCount(bar.records)} records ${metric}, ${predicted}${ratio}`;
  }
  return (
    `subtasks ${bar.first}–${bar.last}: ${formatCount(Math.round(bar.records))} records ${metric} ` +
    `each on average, busiest ${formatCount(bar.max)}; ${predicted} each${ratio}`
  );
}

function SkewBar(props: {
  readonly shape: BarShape;
  readonly label: boolean;
  readonly metric: Metric;
}) {
  const { shape, label, metric } = props;
  const { bar } = shape;
  const state = bar.expected === null ? "pending" : heatOf(bar.ratio);
  return (
    <g className={`skew__bar skew__bar--${state}`} data-testid={`skew-bar-${bar.first}`}>
      <title>{barTitle(shape, metric)}</title>
      <rect x={shape.x} y={shape.y} width={shape.width} height={Math.max(shape.height, 0)} />
      {bar.first !== bar.last && bar.max > bar.records && (
        <path className="skew__max" d={`M ${shape.centre - 3} ${shape.maxY - 4} h 6 l -3 4 z`} />
      )}
      {shape.expectedY !== null && (
        <line
          className="skew__expected"
          x1={shape.x - 1}
          x2={shape.x + shape.width + 1}
          y1={shape.expectedY}
          y2={shape.expectedY}
        />
      )}
      {label && (
        <text x={shape.centre} y={FRAME.height - 8} textAnchor="middle">
          {bar.first}
        </text>
      )}
    </g>
  );
}
