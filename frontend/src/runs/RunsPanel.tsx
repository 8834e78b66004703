import { useCallback, useEffect, useState } from "react";

import { isActive, listRuns, type RunSummary } from "../api/runs";
import { navigate } from "../app/router";
import { timeAgo } from "../versions/history";
import { useResource } from "../ui/useResource";
import { clusterText, formatDuration, runDuration } from "./format";
import { runError } from "./outcomes";
import { StatusBadge } from "./StatusBadge";
import "./panels.css";

/** While a run is active the list is asked again this often. */
const REFRESH_MS = 3000;

interface Loaded {
  readonly runs: readonly RunSummary[];
  /** When they were fetched: durations of active runs count to it. */
  readonly at: number;
}

/** A pipeline's runs, newest first: version, status, who, when, how long; a click opens one. */
export function RunsPanel({
  pipelineId,
  latestRun,
}: {
  readonly pipelineId: number;
  /** The last run someone started while the page is open: the list reloads on it. */
  readonly latestRun: number | null;
}) {
  const [refreshes, setRefreshes] = useState(0);
  const load = useCallback(
    async (signal: AbortSignal): Promise<Loaded> => ({
      runs: await listRuns(pipelineId, signal),
      at: Date.now(),
    }),
    [pipelineId],
  );
  const { data, error } = useResource(load, `${pipelineId}#${refreshes}#${String(latestRun)}`, 250);
  const anyActive = data?.runs.some((run) => isActive(run.status)) ?? false;
  useEffect(() => {
    if (!anyActive) {
      return;
    }
    const timer = window.setTimeout(() => {
      setRefreshes((n) => n + 1);
    }, REFRESH_MS);
    return () => {
      window.clearTimeout(timer);
    };
  }, [anyActive, data]);

  return (
    <div className="runs-panel" data-testid="runs-panel">
      <div className="runs-panel__head">
        <h3>Runs</h3>
        <button
          type="button"
          className="link-button"
          onClick={() => {
            setRefreshes((n) => n + 1);
          }}
        >
          refresh
        </button>
      </div>
      {error !== null && <p className="form-error">{error}</p>}
      {data === null ? (
        error === null && <p className="muted">Loading…</p>
      ) : data.runs.length === 0 ? (
        <p className="muted">
          No runs yet. Save a version, then press ▶ Run on it in the Versions tab.
        </p>
      ) : (
        <ol className="run-list">
          {data.runs.map((run) => (
            <RunItem key={run.id} run={run} now={data.at} />
          ))}
        </ol>
      )}
    </div>
  );
}

function RunItem({ run, now }: { readonly run: RunSummary; readonly now: number }) {
  // A canceled run's stored text is no error: only a failed run shows one.
  const error = runError(run);
  const open = (): void => {
    navigate({ page: "run", pipeline: run.pipeline, run: run.id });
  };
  return (
    <li
      className="run-list__item"
      onClick={open}
      onKeyDown={(event) => {
        if (event.key === "Enter") {
          open();
        }
      }}
      tabIndex={0}
      role="link"
      data-testid={`run-item-${run.id}`}
    >
      <span className="run-list__title">
        #{run.id} · v{run.version}
      </span>
      <StatusBadge status={run.status} />
      <span className="run-list__duration" title="Duration">
        {formatDuration(runDuration(run, now))}
      </span>
      <span className="run-list__meta">
        {run.startedBy?.username ?? "unknown"} ·{" "}
        <time dateTime={run.createdAt} title={run.createdAt}>
          {timeAgo(run.createdAt, now)}
        </time>{" "}
        · {clusterText(run.cluster)}
        {error !== null && (
          <span className="run-list__error" title={error}>
            {" "}
            · {error}
          </span>
        )}
      </span>
    </li>
  );
}
