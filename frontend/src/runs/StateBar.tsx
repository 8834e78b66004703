import type { ExecutionState } from "../api/runs";
import "./badges.css";
import { countsText, stateSegments } from "./states";

/**
 * A segmented progress bar: one segment per state its subtasks are in, as wide
 * as their share, done on the left and failures on the right.
 */
export function StateBar({
  counts,
  testId,
}: {
  readonly counts: Readonly<Record<ExecutionState, number>>;
  readonly testId?: string;
}) {
  const segments = stateSegments(counts);
  const title = countsText(counts);
  return (
    <div className="state-bar" title={title} data-testid={testId} role="img" aria-label={title}>
      {segments.map((segment) => (
        <span
          key={segment.state}
          className={`state-bar__segment state--${segment.state}`}
          style={{ width: `${segment.fraction * 100}%` }}
        />
      ))}
    </div>
  );
}

/** The non-empty states as small coloured counts: "2 FINISHED · 1 RUNNING". */
export function StateCounts({
  counts,
}: {
  readonly counts: Readonly<Record<ExecutionState, number>>;
}) {
  return (
    <span className="state-counts">
      {stateSegments(counts).map((segment) => (
        <span key={segment.state} className="state-counts__item" title={segment.state}>
          <span className={`state-dot state--${segment.state}`} />
          {segment.count} {segment.state.toLowerCase()}
        </span>
      ))}
    </span>
  );
}
