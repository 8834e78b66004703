import { useState } from "react";

import { ExecutionGraphView } from "../plan/ExecutionGraphView";
import { plural } from "../plan/executionModel";
import { JobGraphView } from "../plan/JobGraphView";
import { RescaleView } from "../plan/RescaleView";
import { Canvas } from "./Canvas";
import { useDocumentStore, useEditor } from "./context";
import { FindOnCanvas } from "./FindOnCanvas";
import type { Notify } from "./notices";
import { ProblemsPanel } from "./ProblemsPanel";

type View = "canvas" | "jobgraph" | "execution" | "rescale";

const VIEWS: readonly (readonly [View, string])[] = [
  ["canvas", "StreamGraph"],
  ["jobgraph", "JobGraph"],
  ["execution", "ExecutionGraph"],
  ["rescale", "Rescale"],
];

/**
 * The middle of the editor: the canvas, with the JobGraph, the ExecutionGraph or the
 * rescale simulator over it when chosen (the canvas stays mounted, so switching back is
 * instant), the find box over them while `finding`, and the problems below.
 */
export function EditorViews({
  pipelineId,
  notify,
  finding,
  onFindClosed,
}: {
  readonly pipelineId: number;
  readonly notify: Notify;
  readonly finding: boolean;
  readonly onFindClosed: () => void;
}) {
  const { selection } = useEditor();
  const plan = useDocumentStore((state) => state.plan);
  const revision = useDocumentStore((state) => state.revision);
  const [view, setView] = useState<View>("canvas");
  const summary = plan?.summary ?? null;

  return (
    <main className="editor__main">
      <nav className="tabs" aria-label="Views">
        {VIEWS.map(([id, label]) => (
          <button
            key={id}
            type="button"
            className={view === id ? "tab is-active" : "tab"}
            onClick={() => {
              setView(id);
            }}
            data-testid={`view-${id}`}
          >
            {label}
          </button>
        ))}
        <span className="tabs__summary">
          {summary !== null &&
            [
              plural(summary.vertexCount, "job vertex", "job vertices"),
              summary.totalSubtasks === null
                ? "? subtasks"
                : plural(summary.totalSubtasks, "subtask"),
              plural(summary.slotsRequired, "slot"),
            ].join(" · ")}
        </span>
      </nav>
      <div className="editor__view">
        <Canvas onNotice={notify} />
        {view === "jobgraph" && (
          <JobGraphOverlay
            onRevealed={() => {
              setView("canvas");
            }}
          />
        )}
        {view === "execution" && (
          <div className="view-overlay">
            <ExecutionGraphView pipelineId={pipelineId} revision={revision} />
          </div>
        )}
        {view === "rescale" && (
          <div className="view-overlay">
            <RescaleOverlay pipelineId={pipelineId} notify={notify} />
          </div>
        )}
        {finding && (
          <FindOnCanvas
            onPick={(nodeId) => {
              // Selected, and centred by the canvas, which is shown for it.
              selection.getState().reveal([nodeId]);
              setView("canvas");
            }}
            onClose={onFindClosed}
          />
        )}
      </div>
      <ProblemsPanel notify={notify} />
    </main>
  );
}

/** The JobGraph over the canvas; only while it is shown does it follow every edit. */
function JobGraphOverlay({ onRevealed }: { readonly onRevealed: () => void }) {
  const { selection } = useEditor();
  const document = useDocumentStore((state) => state.document);
  const plan = useDocumentStore((state) => state.plan);
  if (plan === null || document === null) {
    return null;
  }
  return (
    <div className="view-overlay">
      <JobGraphView
        plan={plan}
        document={document}
        onSelectNodes={(nodes) => {
          selection.getState().reveal(nodes);
          onRevealed();
        }}
      />
    </div>
  );
}

/** The rescale simulator; its "set it explicitly" is one undoable edit of the working copy. */
function RescaleOverlay({
  pipelineId,
  notify,
}: {
  readonly pipelineId: number;
  readonly notify: Notify;
}) {
  const { session, canEdit } = useEditor();
  const revision = useDocumentStore((state) => state.revision);
  const defaultParallelism = useDocumentStore(
    (state) => state.document?.config?.defaultParallelism ?? 1,
  );
  return (
    <RescaleView
      pipelineId={pipelineId}
      revision={revision}
      defaultParallelism={defaultParallelism}
      canEdit={canEdit}
      onPin={(edits) => {
        const result = session.document.getState().applyEdits(edits);
        notify(
          result.ok
            ? "Max parallelism set explicitly (undo to take it back)."
            : result.error.message,
          result.ok ? "info" : "error",
        );
      }}
    />
  );
}
