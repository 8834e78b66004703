import { useState } from "react";

import { ApiError } from "../api/http";
import {
  cancelRun,
  DEFAULT_CLUSTER,
  isActive,
  startRun,
  type RunInfo,
  type SparkApplication,
} from "../api/runs";
import { navigate } from "../app/router";
import { useShallow } from "../store/hooks";
import { receiveDetail } from "../store/run";
import { errorText } from "../ui/useResource";
import { useNow, useRun, useRunPage } from "./context";
import {
  clusterText,
  formatDateTime,
  formatDuration,
  queueTime,
  runDuration,
  sparkLinks,
} from "./format";
import { describeOverrides } from "./runParameters";
import { StatusBadge } from "./StatusBadge";

/** The run's status, how long it has run, who started it where, and Cancel / Run again. */
export function RunHeader({ pipelineName }: { readonly pipelineName: string | null }) {
  const { pipelineId } = useRunPage();
  const info = useRun((state) => state.info);
  if (info === null) {
    return null;
  }
  return (
    <header className="topbar run-header" data-testid="run-header">
      <button
        type="button"
        className="button"
        onClick={() => {
          navigate({ page: "editor", pipeline: pipelineId });
        }}
        data-testid="run-back"
      >
        ← Editor
      </button>
      <h1 className="run-header__title">
        {pipelineName ?? "Pipeline"}{" "}
        <span className="muted">
          · run #{info.id} of v{info.version}
        </span>
      </h1>
      <StatusBadge status={info.status} testId="run-status" />
      <RunClock />
      <span className="run-header__meta muted" title={runFacts(info)}>
        by {info.startedBy?.username ?? "unknown"} ·{" "}
        {formatDateTime(info.startedAt ?? info.createdAt)} ·{" "}
        <span title="The cluster it runs on" data-testid="run-cluster">
          {clusterText(info.cluster)}
        </span>
        <SparkNote spark={info.spark} />
        <OverridesNote info={info} />
      </span>
      <ConnectionNote />
      <span className="topbar__spacer" />
      <RunActions />
    </header>
  );
}

/** "· app-20260101-0007 · Spark UI · History": the Spark application the run executes in,
 * and its cluster's links to it; nothing before a worker has started Spark for it. */
function SparkNote({ spark }: { readonly spark: SparkApplication | null }) {
  if (spark === null) {
    return null;
  }
  return (
    <>
      {" · "}
      <span
        className="run-header__spark"
        title="The Spark application it runs in (shared by the runs of its worker)"
        data-testid="run-spark-application"
      >
        {spark.id}
      </span>
      {sparkLinks(spark).map((link) => (
        <span key={link.label}>
          {" · "}
          <a
            href={link.href}
            title={link.title}
            target="_blank"
            rel="noopener noreferrer"
            data-testid={`run-spark-${link.label === "Spark UI" ? "ui" : "history"}`}
          >
            {link.label}
          </a>
        </span>
      ))}
    </>
  );
}

/** "· 2 parameters overridden", listing them on hover; nothing for a run of the version as is. */
function OverridesNote({ info }: { readonly info: RunInfo }) {
  const overrides = describeOverrides(info.parameters);
  if (overrides.length === 0) {
    return null;
  }
  return (
    <>
      {" · "}
      <span
        className="run-header__overrides"
        title={`This run overrides the version's parameters:\n${overrides.join("\n")}`}
        data-testid="run-overrides"
      >
        {overrides.length} parameter{overrides.length === 1 ? "" : "s"} overridden
      </span>
    </>
  );
}

/** Where and how the run ran, one fact a line, for the header's tooltip. */
function runFacts(info: RunInfo): string {
  const details = Object.entries(info.details).map(
    ([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`,
  );
  return [
    `created ${info.createdAt}`,
    `started ${info.startedAt ?? "–"}`,
    `finished ${info.finishedAt ?? "–"}`,
    `worker ${info.worker ?? "–"}`,
    ...details,
  ].join("\n");
}

/** The run's duration, ticking while it runs; the queue time before it starts. */
function RunClock() {
  const times = useRun(
    useShallow((state) => ({
      status: state.info?.status,
      createdAt: state.info?.createdAt ?? "",
      startedAt: state.info?.startedAt ?? null,
      finishedAt: state.info?.finishedAt ?? null,
    })),
  );
  const active = times.status !== undefined && isActive(times.status);
  const now = useNow(active);
  const duration = runDuration(times, now);
  const queued = queueTime(times);
  return (
    <span
      className="run-clock"
      data-testid="run-duration"
      title={queued === null ? undefined : `Waited ${formatDuration(queued)} for a worker`}
    >
      {duration === null
        ? active
          ? "waiting for a worker…"
          : "never started"
        : formatDuration(duration)}
    </span>
  );
}

function ConnectionNote() {
  const { connection, detail } = useRun(
    useShallow((state) => ({ connection: state.connection, detail: state.detail })),
  );
  if (connection === "open" || connection === "connecting") {
    return null;
  }
  return (
    <span className={`run-connection run-connection--${connection}`} data-testid="run-connection">
      {detail}
    </span>
  );
}

/** Cancel while the run is active, Run again once it ended (editors). */
function RunActions() {
  const { run, canEdit, pipelineId } = useRunPage();
  const info = useRun((state) => state.info);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  if (info === null || !canEdit) {
    return null;
  }
  const cancel = async (): Promise<void> => {
    setBusy(true);
    setMessage(null);
    try {
      const detail = await cancelRun(info.id);
      run.setState(receiveDetail(run.getState(), detail));
    } catch (error) {
      setMessage(
        error instanceof ApiError && error.code === "run-ended"
          ? "The run had already ended."
          : errorText(error),
      );
    } finally {
      setBusy(false);
    }
  };
  const again = async (): Promise<void> => {
    setBusy(true);
    setMessage(null);
    try {
      const started = await startRun(pipelineId, {
        version: info.version,
        ...(info.cluster === DEFAULT_CLUSTER ? {} : { cluster: info.cluster }),
        parameters: info.parameters,
      });
      navigate({ page: "run", pipeline: pipelineId, run: started.id });
    } catch (error) {
      setMessage(errorText(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="run-actions">
      {message !== null && <span className="form-error">{message}</span>}
      {isActive(info.status) ? (
        <button
          type="button"
          className="button button--danger"
          disabled={busy || info.status === "CANCELING"}
          onClick={cancel}
          data-testid="run-cancel"
        >
          {info.status === "CANCELING" ? "Canceling…" : "Cancel run"}
        </button>
      ) : (
        <button
          type="button"
          className="button"
          disabled={busy}
          onClick={again}
          title={`Run version ${info.version} again on ${clusterText(info.cluster)}`}
          data-testid="run-again"
        >
          Run again
        </button>
      )}
    </span>
  );
}
