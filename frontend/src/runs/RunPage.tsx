import { useCallback, useEffect, useMemo, useState } from "react";

import * as api from "../api/resources";
import { getRun } from "../api/runs";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { VersionBadges } from "../reviews/VersionBadges";
import { useShallow } from "../store/hooks";
import { createRunViewStore } from "../store/runView";
import { useResource } from "../ui/useResource";
import { RunPageContext, useRun, useRunPage, type RunPageContextValue } from "./context";
import { ExecutionSection } from "./ExecutionSection";
import { endingLine, runEnding, type RunEnding } from "./outcomes";
import { nodeNames, vertexFacts } from "./planFacts";
import { RunCanvas } from "./RunCanvas";
import { RunHeader } from "./RunHeader";
import { RunSidePanel } from "./RunSidePanel";
import { RunWatcher } from "./runSocket";
import { VertexTable } from "./VertexTable";
import "./runs.css";

interface Loaded {
  readonly pipeline: api.PipelineDetail;
  readonly canEdit: boolean;
  readonly document: StreamGraphDocument | null;
  readonly plan: api.CompiledPlan | null;
}

async function load(
  pipelineId: number,
  runId: number,
  signal: AbortSignal,
  watcher: RunWatcher,
): Promise<Loaded> {
  const [pipeline, workspaces, run] = await Promise.all([
    api.getPipeline(pipelineId, signal),
    api.listWorkspaces(),
    getRun(runId, signal),
  ]);
  watcher.seed(run);
  const role =
    workspaces.find((workspace) => workspace.id === pipeline.workspace)?.role ?? "viewer";
  // The run's version as it was saved, and its plan: which nodes each vertex holds.
  const [version, plan] = await Promise.all([
    api.getVersion(run.pipeline, run.version, signal).catch(() => null),
    api.getPlan(run.pipeline, run.version, signal).catch(() => null),
  ]);
  return { pipeline, canEdit: role !== "viewer", document: version?.document ?? null, plan };
}

/**
 * A run of a saved version, live: the version's graph with each JobVertex's
 * subtask states and records (and the open comment threads of its elements), Flink's vertex list, how
 * the run executed beside Flink's planned exchanges, and per vertex its subtasks,
 * their records against the key-group prediction, the sinks' output and every
 * failure. The run's websocket keeps all of it current.
 */
export function RunPage({
  pipelineId,
  runId,
}: {
  readonly pipelineId: number;
  readonly runId: number;
}) {
  const [watcher] = useState(() => new RunWatcher(runId));
  const [view] = useState(createRunViewStore);
  useEffect(() => {
    watcher.connect();
    return () => {
      watcher.close();
    };
  }, [watcher]);
  const fetchAll = useCallback(
    (signal: AbortSignal) => load(pipelineId, runId, signal, watcher),
    [pipelineId, runId, watcher],
  );
  const { data, error } = useResource(fetchAll, `${pipelineId}:${runId}`);
  const context = useMemo((): RunPageContextValue | null => {
    if (data === null) {
      return null;
    }
    return {
      run: watcher.store,
      view,
      pipelineId,
      canEdit: data.canEdit,
      document: data.document,
      facts: vertexFacts(data.plan?.jobGraph ?? null),
      nodeNames: nodeNames(data.document),
    };
  }, [data, watcher, view, pipelineId]);

  if (context === null) {
    return error === null ? (
      <div className="page-loading">Loading the run…</div>
    ) : (
      <div className="page-message">
        <h1>Cannot show this run</h1>
        <p className="form-error">{error}</p>
      </div>
    );
  }
  return (
    <RunPageContext value={context}>
      <RunLayout pipelineName={data?.pipeline.name ?? null} />
    </RunPageContext>
  );
}

function RunLayout({ pipelineName }: { readonly pipelineName: string | null }) {
  const ready = useRun((state) => state.info !== null);
  const ending = useRun(
    useShallow((state) => (state.info === null ? null : runEnding(state.info))),
  );
  const version = useRun((state) => state.info?.version ?? null);
  const eventsProblem = useRun((state) => state.info?.eventsProblem ?? null);
  const { pipelineId } = useRunPage();
  if (!ready) {
    return <div className="page-loading">Loading the run…</div>;
  }
  return (
    <div className="run-page" data-testid="run-page">
      <RunHeader pipelineName={pipelineName} />
      {ending !== null && <RunEndingBanner ending={ending} />}
      {eventsProblem !== null && (
        <div
          className="run-banner run-banner--warning"
          role="status"
          data-testid="run-events-problem"
        >
          <strong>Live subtask states are not arriving:</strong>{" "}
          <span className="run-banner__text">{eventsProblem}</span>
        </div>
      )}
      <div className="run-page__body">
        <div className="run-page__main">
          {version === null ? (
            <RunCanvas />
          ) : (
            <VersionBadges pipelineId={pipelineId} version={version}>
              <RunCanvas />
            </VersionBadges>
          )}
          <VertexTable />
          <ExecutionSection />
        </div>
        <RunSidePanel />
      </div>
    </div>
  );
}

/** How the run ended: a failure in red with its error, a cancel neutrally with who did it. */
function RunEndingBanner({ ending }: { readonly ending: RunEnding }) {
  if (ending.tone === "failed") {
    return (
      <div className="run-banner" data-testid="run-error">
        <strong>{ending.title}:</strong>{" "}
        <span className="run-banner__text">{ending.detail ?? "(no error text)"}</span>
      </div>
    );
  }
  return (
    <div
      className="run-banner run-banner--neutral"
      data-testid="run-ending"
      title={endingLine(ending)}
    >
      <strong>{ending.title}</strong>
      {ending.detail !== null && <span> {ending.detail}</span>}
    </div>
  );
}
