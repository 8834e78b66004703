import { useCallback, useMemo, useState } from "react";

import * as api from "../api/resources";
import { CanvasBadges } from "../canvas/badges";
import { DiffThreads, useDiffComments } from "../reviews/DiffComments";
import { useWorkspaceViewer } from "../reviews/useWorkspaceViewer";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { useResource } from "../ui/useResource";
import { DiffCanvas, type Focus } from "./DiffCanvas";
import { diffGraph, savepointVerdict } from "./diffModel";
import { DiffSidePanel } from "./DiffSidePanel";
import { versionName } from "./history";
import { VerdictBanner } from "./VerdictBanner";
import "./versions.css";

interface Loaded {
  readonly pipeline: api.PipelineDetail;
  readonly diff: api.PlanDiff;
  readonly before: StreamGraphDocument;
  readonly after: StreamGraphDocument;
}

async function documentOf(
  pipeline: api.PipelineDetail,
  ref: api.VersionRef,
  signal: AbortSignal,
): Promise<StreamGraphDocument> {
  return ref === "working"
    ? pipeline.document
    : (await api.getVersion(pipeline.id, ref, signal)).document;
}

/**
 * Two versions compared: the newer one's graph, read-only, with added, removed
 * (ghosted) and changed elements marked and their open comment threads counted; the
 * savepoint verdict; every change on the StreamGraph, JobGraph and ExecutionGraph
 * listed beside it, and the threads of both versions, each read at its own.
 */
export function DiffPage(props: {
  readonly pipelineId: number;
  readonly from: api.VersionRef;
  readonly to: api.VersionRef;
  readonly onClose: () => void;
}) {
  const { pipelineId, from, to, onClose } = props;
  const load = useCallback(
    async (signal: AbortSignal): Promise<Loaded> => {
      const [pipeline, diff] = await Promise.all([
        api.getPipeline(pipelineId, signal),
        api.getDiff(pipelineId, from, to, signal),
      ]);
      const [before, after] = await Promise.all([
        documentOf(pipeline, from, signal),
        documentOf(pipeline, to, signal),
      ]);
      return { pipeline, diff, before, after };
    },
    [pipelineId, from, to],
  );
  const { data, error } = useResource(load, `${pipelineId}:${from}:${to}`);
  const graph = useMemo(
    () => (data === null ? null : diffGraph(data.before, data.after, data.diff)),
    [data],
  );
  const [focus, setFocus] = useState<Focus | null>(null);
  const reveal = useCallback((node: number) => {
    setFocus((current) => ({ node, serial: (current?.serial ?? 0) + 1 }));
  }, []);
  const removed = useMemo(
    () =>
      graph === null
        ? null
        : {
            nodes: new Set(graph.nodes.filter((n) => n.change === "removed").map((n) => n.node.id)),
            edges: new Set(graph.edges.filter((e) => e.change === "removed").map((e) => e.id)),
          },
    [graph],
  );
  const comments = useDiffComments(pipelineId, from, to, removed);
  const viewer = useWorkspaceViewer(data?.pipeline.workspace ?? null);

  return (
    <div className="diff-page" data-testid="diff-page">
      <header className="topbar">
        <button type="button" className="button" onClick={onClose} data-testid="diff-close">
          ← Back to the editor
        </button>
        <h1 className="diff-page__title">
          {data?.pipeline.name ?? "Pipeline"}: {versionName(from)} → {versionName(to)}
        </h1>
        <span className="topbar__spacer" />
        <span className="diff-legend">
          <span className="diff-legend__item diff-legend__item--added">added</span>
          <span className="diff-legend__item diff-legend__item--removed">removed</span>
          <span className="diff-legend__item diff-legend__item--changed">changed</span>
        </span>
      </header>
      {error !== null && (
        <div className="page-message">
          <h2>Cannot compare these versions</h2>
          <p className="form-error">{error}</p>
        </div>
      )}
      {data === null || graph === null ? (
        error === null && <div className="page-loading">Comparing the versions…</div>
      ) : (
        <>
          <VerdictBanner verdict={savepointVerdict(data.diff, from, to)} />
          <div className="diff-page__body">
            <div className="diff-page__canvas">
              <CanvasBadges badgesOf={comments.badgesOf}>
                <DiffCanvas graph={graph} focus={focus} />
              </CanvasBadges>
            </div>
            <DiffSidePanel
              diff={data.diff}
              graph={graph}
              onReveal={reveal}
              threads={{
                open: comments.open,
                panel: (
                  <DiffThreads
                    pipelineId={pipelineId}
                    from={from}
                    to={to}
                    sides={comments.sides}
                    viewer={viewer}
                    onReveal={(thread) => {
                      const node = thread.target.node ?? thread.target.edge?.[0] ?? null;
                      if (node !== null) {
                        reveal(node);
                      }
                    }}
                  />
                ),
              }}
            />
          </div>
        </>
      )}
    </div>
  );
}
