import { Fragment, memo } from "react";

import type { Subtask } from "../api/runs";
import { formatClock, formatCount, formatDuration, spanDuration } from "./format";
import { keyGroupCount } from "./skew";
import { retries } from "./states";
import { StatusBadge } from "./StatusBadge";

/** One subtask; a click opens its attempt history (and the error of a failed attempt). */
export const SubtaskRow = memo(function SubtaskRow(props: {
  readonly subtask: Subtask;
  readonly open: boolean;
  readonly now: number;
  readonly onToggle: () => void;
}) {
  const { subtask, open, now, onToggle } = props;
  const retried = retries(subtask);
  const [first, last] = subtask.keyGroups;
  return (
    <>
      <tr
        className={`run-table__row${open ? " is-open" : ""}${subtask.state === "FAILED" ? " is-failed" : ""}`}
        onClick={onToggle}
        data-testid={`subtask-row-${subtask.subtask}`}
        data-state={subtask.state}
        title={subtask.name}
        aria-expanded={open}
      >
        <td className="num">{subtask.subtask}</td>
        <td>
          <StatusBadge status={subtask.state} />
        </td>
        <td className="num">
          {subtask.attempt}
          {retried > 0 && (
            <span
              className="retry-mark"
              title={`${retried} earlier attempt${retried === 1 ? "" : "s"}`}
            >
              {" "}
              ↻{retried}
            </span>
          )}
        </td>
        <td className="num" data-testid={`subtask-in-${subtask.subtask}`}>
          {formatCount(subtask.recordsIn)}
        </td>
        <td className="num" data-testid={`subtask-out-${subtask.subtask}`}>
          {formatCount(subtask.recordsOut)}
        </td>
        <td className="num">{formatDuration(spanDuration(subtask, now))}</td>
        <td className="mono" title={`${keyGroupCount(subtask.keyGroups)} key groups`}>
          {first}–{last}
        </td>
      </tr>
      {subtask.state === "FAILED" && subtask.error !== null && !open && (
        <tr className="subtasks__error-row">
          <td colSpan={7}>
            <pre className="run-error run-error--inline">{subtask.error}</pre>
          </td>
        </tr>
      )}
      {open && (
        <tr className="subtasks__history-row">
          <td colSpan={7}>
            <AttemptHistory subtask={subtask} now={now} />
          </td>
        </tr>
      )}
    </>
  );
});

function AttemptHistory({ subtask, now }: { readonly subtask: Subtask; readonly now: number }) {
  return (
    <div className="attempts" data-testid={`attempts-${subtask.subtask}`}>
      <div className="attempts__head muted">
        {subtask.name} · key groups {subtask.keyGroups[0]}–{subtask.keyGroups[1]} (
        {keyGroupCount(subtask.keyGroups)})
      </div>
      <table className="attempts__table">
        <thead>
          <tr>
            <th className="num">Attempt</th>
            <th>State</th>
            <th className="num">In</th>
            <th className="num">Out</th>
            <th>Start</th>
            <th>End</th>
            <th className="num">Duration</th>
          </tr>
        </thead>
        <tbody>
          {[...subtask.attempts].reverse().map((attempt) => (
            <Fragment key={attempt.attempt}>
              <tr data-testid={`attempt-${subtask.subtask}-${attempt.attempt}`}>
                <td className="num">{attempt.attempt}</td>
                <td>
                  <StatusBadge status={attempt.state} />
                </td>
                <td className="num">{formatCount(attempt.recordsIn)}</td>
                <td className="num">{formatCount(attempt.recordsOut)}</td>
                <td className="mono">{formatClock(attempt.startTime)}</td>
                <td className="mono">{formatClock(attempt.endTime)}</td>
                <td className="num">{formatDuration(spanDuration(attempt, now))}</td>
              </tr>
              {attempt.error !== null && (
                <tr>
                  <td colSpan={7}>
                    <pre className="run-error run-error--inline">{attempt.error}</pre>
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );
}
