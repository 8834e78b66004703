import { useMemo, useState } from "react";

import type { ExecutionState, Subtask } from "../api/runs";
import { useNow } from "./context";
import { plural } from "./format";
import { countStates, stateSegments } from "./states";
import { Pager } from "./Pager";
import { SubtaskRow } from "./SubtaskRow";
import {
  filterByState,
  nextOrder,
  pageOf,
  sortSubtasks,
  withFailures,
  type SortKey,
  type SortOrder,
} from "./subtaskRows";

const COLUMNS: readonly {
  readonly key: SortKey;
  readonly label: string;
  readonly numeric?: boolean;
}[] = [
  { key: "subtask", label: "#", numeric: true },
  { key: "state", label: "State" },
  { key: "attempt", label: "Attempt", numeric: true },
  { key: "recordsIn", label: "In", numeric: true },
  { key: "recordsOut", label: "Out", numeric: true },
  { key: "duration", label: "Duration", numeric: true },
];

/**
 * A vertex's subtasks as Flink's subtask view lists them: state, attempt (the
 * history opens below a row), records, duration and key groups. Filter by
 * state, sort by a column; long lists come in pages.
 */
export function SubtaskTable({
  subtasks,
  active,
}: {
  readonly subtasks: readonly Subtask[];
  readonly active: boolean;
}) {
  const [states, setStates] = useState<ReadonlySet<ExecutionState>>(new Set());
  const [failedOnly, setFailedOnly] = useState(false);
  const [order, setOrder] = useState<SortOrder>({ key: "subtask", descending: false });
  const [page, setPage] = useState(0);
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  // Running subtasks' durations grow every second.
  const now = useNow(active);
  const failedEver = useMemo(() => withFailures(subtasks), [subtasks]);
  const rows = sortSubtasks(filterByState(failedOnly ? failedEver : subtasks, states), order, now);
  const shown = pageOf(rows, page);
  const toggleState = (state: ExecutionState): void => {
    const next = new Set(states);
    if (!next.delete(state)) {
      next.add(state);
    }
    setStates(next);
    setPage(0);
  };
  return (
    <div className="subtasks" data-testid="subtask-table">
      <div className="subtasks__filters">
        {stateSegments(countStates(subtasks)).map((segment) => (
          <button
            key={segment.state}
            type="button"
            className={`chip${states.has(segment.state) ? " is-active" : ""}`}
            onClick={() => {
              toggleState(segment.state);
            }}
            data-testid={`subtask-filter-${segment.state}`}
          >
            <span className={`state-dot state--${segment.state}`} /> {segment.state.toLowerCase()}{" "}
            {segment.count}
          </button>
        ))}
        {failedEver.length > 0 && (
          <button
            type="button"
            className={`chip chip--failed${failedOnly ? " is-active" : ""}`}
            onClick={() => {
              setFailedOnly(!failedOnly);
              setPage(0);
            }}
            data-testid="subtask-filter-failures"
          >
            failed at least once {failedEver.length}
          </button>
        )}
      </div>
      <table className="table run-table subtasks__table">
        <thead>
          <tr>
            {COLUMNS.map((column) => (
              <th key={column.key} className={column.numeric === true ? "num" : undefined}>
                <button
                  type="button"
                  className="sort-button"
                  onClick={() => {
                    setOrder(nextOrder(order, column.key));
                  }}
                  aria-sort={
                    order.key === column.key
                      ? order.descending
                        ? "descending"
                        : "ascending"
                      : "none"
                  }
                >
                  {column.label}
                  {order.key === column.key && (order.descending ? " ↓" : " ↑")}
                </button>
              </th>
            ))}
            <th>Key groups</th>
          </tr>
        </thead>
        <tbody>
          {shown.items.map((subtask) => (
            <SubtaskRow
              key={subtask.subtask}
              subtask={subtask}
              open={open.has(subtask.subtask)}
              now={now}
              onToggle={() => {
                const next = new Set(open);
                if (!next.delete(subtask.subtask)) {
                  next.add(subtask.subtask);
                }
                setOpen(next);
              }}
            />
          ))}
        </tbody>
      </table>
      {rows.length === 0 && <p className="muted">No subtask is in the states picked.</p>}
      <Pager page={shown.page} pages={shown.pages} onPage={setPage} testId="subtask-pager">
        {shown.offset + 1}–{shown.offset + shown.items.length} of {plural(rows.length, "subtask")}
      </Pager>
    </div>
  );
}
