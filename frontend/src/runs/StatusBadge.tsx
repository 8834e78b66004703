import type { ExecutionState, RunStatus } from "../api/runs";
import "./badges.css";
import { statusTone } from "./states";

/** A run status or ExecutionState as a coloured pill, Flink's name in capitals. */
export function StatusBadge({
  status,
  testId,
}: {
  readonly status: RunStatus | ExecutionState;
  readonly testId?: string;
}) {
  return (
    <span
      className={`run-status run-status--${statusTone(status)}`}
      data-testid={testId}
      data-status={status}
    >
      {status}
    </span>
  );
}
