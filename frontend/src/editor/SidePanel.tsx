import { navigate } from "../app/router";
import { ActivityPanel } from "../reviews/ActivityPanel";
import { RunsPanel } from "../runs/RunsPanel";
import type { Markers } from "../savepoints/StatePanel";
import { useStore } from "../store/hooks";
import { VersionsPanel } from "../versions/VersionsPanel";
import { CommentsTab } from "./CommentsTab";
import { useDocumentStore, useEditor } from "./context";
import { Inspector } from "./Inspector";
import type { Notify } from "./notices";
import { StateTab } from "./StateTab";

export type Side = "properties" | "versions" | "runs" | "comments" | "activity" | "state";

const TABS: readonly (readonly [Side, string])[] = [
  ["properties", "Properties"],
  ["versions", "Versions"],
  ["runs", "Runs"],
  ["comments", "Comments"],
  ["activity", "Activity"],
  ["state", "State"],
];

/**
 * The right-hand panel: the inspector, the pipeline's versions, its runs, its comments,
 * what happened to it, or whether it restores from a savepoint.
 */
export function SidePanel({
  pipelineId,
  workspaceId,
  notify,
  side,
  onSide,
  focusThread,
  onStateMarkers,
}: {
  readonly pipelineId: number;
  readonly workspaceId: number;
  readonly notify: Notify;
  readonly side: Side;
  readonly onSide: (side: Side) => void;
  /** A thread to show in the comments (opened from a mention). */
  readonly focusThread: number | null;
  /** The State tab's marks for the canvas (null: none, as when another tab is open). */
  readonly onStateMarkers: (markers: Markers | null) => void;
}) {
  const { canEdit, selection, session } = useEditor();
  const revision = useDocumentStore((state) => state.revision);
  const latestVersion = useStore(session.state, (state) => state.versionSaved?.number ?? null);
  const latestRun = useStore(session.state, (state) => state.runStarted?.run ?? null);
  const isOwner = useStore(session.state, (state) => state.you?.role === "owner");
  const reviewNews = useStore(session.reviews, (state) => state.news?.serial ?? 0);
  const reviewHeard = useStore(session.reviews, (state) => state.heard);
  const openThreads = useStore(session.reviews, (state) =>
    state.summary === null ? null : state.summary.total.open + state.summary.total.outdated,
  );
  return (
    <aside className="editor__side">
      <nav className="tabs" aria-label="Side panel">
        {TABS.map(([id, label]) => (
          <button
            key={id}
            type="button"
            className={side === id ? "tab is-active" : "tab"}
            onClick={() => {
              onSide(id);
            }}
            data-testid={`side-${id}`}
          >
            {label}
            {id === "comments" && openThreads !== null && openThreads > 0 && (
              <span
                className="tab__count"
                title={`${openThreads} open threads`}
                data-testid="side-comments-count"
              >
                {openThreads}
              </span>
            )}
          </button>
        ))}
      </nav>
      <div className="editor__side-body">
        {side === "properties" && <Inspector onNotice={notify} />}
        {side === "versions" && (
          <VersionsPanel
            pipelineId={pipelineId}
            revision={revision}
            latestVersion={latestVersion}
            canEdit={canEdit}
            canChooseCluster={canEdit && isOwner}
            onOpenDiff={(from, to) => {
              navigate({ page: "diff", pipeline: pipelineId, from, to });
            }}
            onRevealNode={(node) => {
              selection.getState().reveal([node]);
            }}
            workspaceId={workspaceId}
            reviewNews={reviewNews}
            onOpenReview={(version) => {
              navigate({ page: "review", pipeline: pipelineId, version });
            }}
          />
        )}
        {side === "runs" && <RunsPanel pipelineId={pipelineId} latestRun={latestRun} />}
        {side === "comments" && (
          <CommentsTab pipelineId={pipelineId} notify={notify} focusThread={focusThread} />
        )}
        {side === "activity" && (
          <ActivityPanel
            pipelineId={pipelineId}
            refreshKey={`${latestVersion ?? 0}#${latestRun ?? 0}#${reviewHeard}`}
          />
        )}
        {side === "state" && <StateTab pipelineId={pipelineId} onMarkers={onStateMarkers} />}
      </div>
    </aside>
  );
}
