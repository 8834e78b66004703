import { navigate } from "../app/router";
import { ApiError } from "../api/http";
import * as api from "../api/resources";
import { downloadText, fileStem } from "../pages/download";
import { useDocumentStore, useEditor, useSessionState } from "./context";
import type { Notify } from "./notices";
import { PipelineName } from "./PipelineName";
import { PresenceBar } from "./PresenceBar";
import type { ShortcutHandlers } from "./useShortcuts";

/** The editor's top bar: back, name, save state, who is here, and the commands. */
export function EditorTopBar(props: {
  readonly pipeline: api.PipelineSummary;
  readonly onRenamed: (pipeline: api.PipelineSummary) => void;
  readonly notify: Notify;
  readonly handlers: ShortcutHandlers;
  readonly layingOut: boolean;
}) {
  const { pipeline, notify, handlers, layingOut } = props;
  const { canEdit } = useEditor();
  const status = useSessionState((state) => state.status);
  const you = useSessionState((state) => state.you);
  const revision = useDocumentStore((state) => state.revision);
  const pendingCount = useDocumentStore((state) => state.pending.length);
  const canUndo = useDocumentStore((state) => state.undoStack.length > 0);
  const canRedo = useDocumentStore((state) => state.redoStack.length > 0);

  const exportAs = async (format: api.ExportFormat): Promise<void> => {
    try {
      const text = await api.exportPipeline(pipeline.id, format);
      const suffix = format === "streamgraph" ? "streamgraph.json" : "plan.json";
      downloadText(text, `${fileStem(pipeline.name)}.${suffix}`);
    } catch (caught) {
      notify(caught instanceof ApiError ? caught.detail : String(caught));
    }
  };

  return (
    <header className="topbar">
      <a
        className="topbar__brand"
        href={`/?workspace=${pipeline.workspace}`}
        onClick={(event) => {
          event.preventDefault();
          navigate({ page: "home", workspace: pipeline.workspace });
        }}
      >
        ← Pipelines
      </a>
      <PipelineName
        pipeline={pipeline}
        canEdit={canEdit}
        onRenamed={props.onRenamed}
        onError={notify}
      />
      <span className="save-state" data-testid="save-state" title={`Revision ${revision}`}>
        {status !== "open"
          ? status === "refused"
            ? "Not connected"
            : "Connecting…"
          : pendingCount > 0
            ? "Saving…"
            : `Saved · rev ${revision}`}
      </span>
      {you?.role === "viewer" && <span className="role-pill">read-only (viewer)</span>}
      <span className="topbar__spacer" />
      <PresenceBar />
      <div className="toolbar" role="toolbar" aria-label="Editing">
        <button
          type="button"
          className="button"
          disabled={!canEdit || !canUndo}
          onClick={handlers.undo}
          title="Undo (Ctrl+Z)"
        >
          Undo
        </button>
        <button
          type="button"
          className="button"
          disabled={!canEdit || !canRedo}
          onClick={handlers.redo}
          title="Redo (Ctrl+Shift+Z)"
        >
          Redo
        </button>
        <button
          type="button"
          className="button"
          disabled={!canEdit || layingOut}
          onClick={handlers.autoLayout}
          title="Arrange the operators left to right (L)"
          data-testid="auto-layout"
        >
          {layingOut ? "Laying out…" : "Auto-layout"}
        </button>
        <button type="button" className="button" onClick={handlers.fitView} title="Zoom to fit (F)">
          Fit
        </button>
        <button
          type="button"
          className="button"
          onClick={handlers.find}
          title="Find a node on the canvas (Ctrl+F or /)"
          data-testid="find"
        >
          Find
        </button>
        <button type="button" className="button" onClick={() => void exportAs("streamgraph")}>
          Export
        </button>
        <button
          type="button"
          className="button"
          onClick={() => void exportAs("flink-plan")}
          title="Flink's getExecutionPlan() JSON"
        >
          Flink plan
        </button>
        <button
          type="button"
          className="button"
          onClick={handlers.toggleHelp}
          title="Keyboard shortcuts (?)"
        >
          ?
        </button>
      </div>
    </header>
  );
}
