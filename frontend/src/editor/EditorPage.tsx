import { ReactFlowProvider, useReactFlow } from "@xyflow/react";
import { useEffect, useMemo, useRef, useState } from "react";
import { useStore } from "zustand";

import { navigate } from "../app/router";
import { ApiError } from "../api/http";
import * as api from "../api/resources";
import { edgeKeyOf } from "../graph/canvas";
import { ExecutionGraphView } from "../plan/ExecutionGraphView";
import { JobGraphView } from "../plan/JobGraphView";
import { downloadText, fileStem } from "../pages/download";
import { VersionsPanel } from "../versions/VersionsPanel";
import { Canvas } from "./Canvas";
import { allEdgeIds, copySelection, deleteEdits, pasteEdits, type Clipboard } from "./commands";
import { EditorContext, type EditorContextValue } from "./context";
import { Inspector } from "./Inspector";
import { layoutEdits } from "./layout";
import { Palette } from "./Palette";
import { PresenceBar } from "./PresenceBar";
import { ProblemsPanel } from "./ProblemsPanel";
import { createSelectionStore } from "./selection";
import { EditorSession } from "./session";
import { SHORTCUTS, useShortcuts, type ShortcutHandlers } from "./useShortcuts";
import "./editor.css";

type View = "canvas" | "jobgraph" | "execution";
type SidePanel = "properties" | "versions";

let noticeSerial = 0;

/** How long a notice stays up. */
const NOTICE_MS = 6000;
/** Presence goes out at most this often while the selection changes. */
const PRESENCE_DEBOUNCE_MS = 120;

/** The editor of one pipeline: loads it, opens its live connection, and lays out the panels. */
export default function EditorPage({ pipelineId }: { readonly pipelineId: number }) {
  const [pipeline, setPipeline] = useState<api.PipelineSummary | null>(null);
  const [catalog, setCatalog] = useState<api.Catalog | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [session] = useState(() => new EditorSession(pipelineId));

  useEffect(() => {
    let live = true;
    Promise.all([api.getPipeline(pipelineId), api.getCatalog()])
      .then(([loaded, operators]) => {
        if (live) {
          setPipeline(loaded);
          setCatalog(operators);
        }
      })
      .catch((caught: unknown) => {
        if (live) {
          setError(caught instanceof ApiError ? caught.detail : String(caught));
        }
      });
    return () => {
      live = false;
    };
  }, [pipelineId]);

  // The page is keyed by pipeline; a remount (or React's strict double effect) reconnects.
  useEffect(() => {
    session.connect();
    return () => {
      session.close();
    };
  }, [session]);

  if (error !== null) {
    return (
      <div className="page-message">
        <h1>Cannot open this pipeline</h1>
        <p>{error}</p>
        <a
          href="/"
          onClick={(event) => {
            event.preventDefault();
            navigate({ page: "home", workspace: null });
          }}
        >
          Back to your pipelines
        </a>
      </div>
    );
  }
  if (pipeline === null || catalog === null) {
    return <div className="page-loading">Opening the pipeline…</div>;
  }
  return (
    <ReactFlowProvider>
      <Editor pipeline={pipeline} catalog={catalog} session={session} onRenamed={setPipeline} />
    </ReactFlowProvider>
  );
}

function Editor(props: {
  readonly pipeline: api.PipelineSummary;
  readonly catalog: api.Catalog;
  readonly session: EditorSession;
  readonly onRenamed: (pipeline: api.PipelineSummary) => void;
}) {
  const { pipeline, catalog, session } = props;
  const selection = useMemo(() => createSelectionStore(), []);
  const status = useStore(session.state, (state) => state.status);
  const statusDetail = useStore(session.state, (state) => state.detail);
  const you = useStore(session.state, (state) => state.you);
  const document = useStore(session.document, (state) => state.document);
  const plan = useStore(session.document, (state) => state.plan);
  const revision = useStore(session.document, (state) => state.revision);
  const pendingCount = useStore(session.document, (state) => state.pending.length);
  const canUndo = useStore(session.document, (state) => state.undoStack.length > 0);
  const canRedo = useStore(session.document, (state) => state.redoStack.length > 0);
  const rejection = useStore(session.document, (state) => state.lastRejection);
  const [view, setView] = useState<View>("canvas");
  const [side, setSide] = useState<SidePanel>("properties");
  const [notices, setNotices] = useState<{ id: number; text: string; kind: "info" | "error" }[]>(
    [],
  );
  const [help, setHelp] = useState(false);
  const [layingOut, setLayingOut] = useState(false);
  const clipboard = useRef<Clipboard | null>(null);
  const flow = useReactFlow();
  const canEdit = status === "open" && you !== null && you.role !== "viewer";

  const notify = useMemo(() => {
    return (text: string, kind: "info" | "error" = "error"): void => {
      noticeSerial += 1;
      const id = noticeSerial;
      setNotices((current) => [...current.slice(-3), { id, text, kind }]);
      window.setTimeout(() => {
        setNotices((current) => current.filter((n) => n.id !== id));
      }, NOTICE_MS);
    };
  }, []);

  // An edit the server refused: say why, in words, and what the screen shows now.
  useEffect(() => {
    if (rejection === null) {
      return;
    }
    const what =
      rejection.reason === "conflict"
        ? "Someone else changed the same element first, so your edit was not applied; you now see their version."
        : rejection.reason === "forbidden"
          ? "You may not edit this pipeline (viewer role)."
          : "The server refused the edit.";
    notify(`${what} ${rejection.error.message}`);
    session.document.getState().dismissRejection();
  }, [rejection, notify, session]);

  // Tell the others what is selected here.
  useEffect(() => {
    let timer: number | null = null;
    const unsubscribe = selection.subscribe((state, previous) => {
      if (state.nodes === previous.nodes && state.edges === previous.edges) {
        return;
      }
      if (timer !== null) {
        window.clearTimeout(timer);
      }
      timer = window.setTimeout(() => {
        const edges = [...state.edges].map(edgeKeyOf).filter((key) => key !== null);
        session.sendPresence({ nodes: [...state.nodes], edges });
      }, PRESENCE_DEBOUNCE_MS);
    });
    return () => {
      unsubscribe();
      if (timer !== null) {
        window.clearTimeout(timer);
      }
    };
  }, [selection, session]);

  // Drop selected ids that no longer exist (a co-editor deleted them).
  useEffect(() => {
    if (document === null) {
      return;
    }
    const { nodes, edges } = selection.getState();
    const nodeIds = new Set(document.nodes.map((n) => n.id));
    const edgeIds = new Set(allEdgeIds(document));
    const keptNodes = [...nodes].filter((id) => nodeIds.has(id));
    const keptEdges = [...edges].filter((id) => edgeIds.has(id));
    if (keptNodes.length !== nodes.size || keptEdges.length !== edges.size) {
      selection.getState().select(keptNodes, keptEdges);
    }
  }, [document, selection]);

  const autoLayout = async (): Promise<void> => {
    const current = session.document.getState().document;
    if (current === null || !canEdit || layingOut) {
      return;
    }
    setLayingOut(true);
    try {
      const moves = await layoutEdits(current);
      if (moves.length > 0) {
        session.document.getState().applyEdits(moves);
      }
      window.requestAnimationFrame(() => {
        void flow.fitView({ padding: 0.15, duration: 300, maxZoom: 1.1 });
      });
    } catch (caught) {
      notify(`Auto-layout failed: ${String(caught)}`);
    } finally {
      setLayingOut(false);
    }
  };

  const handlers: ShortcutHandlers = {
    undo: () => {
      if (canEdit) {
        session.document.getState().undo();
      }
    },
    redo: () => {
      if (canEdit) {
        session.document.getState().redo();
      }
    },
    deleteSelection: () => {
      const current = session.document.getState().document;
      const { nodes, edges } = selection.getState();
      if (current === null || !canEdit || nodes.size + edges.size === 0) {
        return;
      }
      const result = session.document.getState().applyEdits(deleteEdits(current, nodes, edges));
      if (!result.ok) {
        notify(result.error.message);
      }
      selection.getState().clear();
    },
    copy: () => {
      const current = session.document.getState().document;
      const { nodes } = selection.getState();
      if (current !== null && nodes.size > 0) {
        clipboard.current = copySelection(current, nodes);
        notify(`Copied ${nodes.size} operators.`, "info");
      }
    },
    paste: () => {
      const current = session.document.getState().document;
      if (current === null || clipboard.current === null || !canEdit) {
        return;
      }
      const { edits, nodeIds } = pasteEdits(current, clipboard.current);
      const result = session.document.getState().applyEdits(edits);
      if (result.ok) {
        const added = result.applied.flatMap((edit) =>
          edit.kind === "add_node" ? [edit.node.id] : [],
        );
        selection.getState().select(added.length > 0 ? added : nodeIds);
        // A second paste lands further along.
        clipboard.current = {
          nodes: clipboard.current.nodes.map((node) => ({
            ...node,
            ui: {
              ...(node.ui ?? {}),
              x: (typeof node.ui?.x === "number" ? node.ui.x : 0) + 40,
              y: (typeof node.ui?.y === "number" ? node.ui.y : 0) + 40,
            },
          })),
          edges: clipboard.current.edges,
        };
      } else {
        notify(result.error.message);
      }
    },
    duplicate: () => {
      const current = session.document.getState().document;
      const { nodes } = selection.getState();
      if (current === null || nodes.size === 0 || !canEdit) {
        return;
      }
      const { edits } = pasteEdits(current, copySelection(current, nodes));
      const result = session.document.getState().applyEdits(edits);
      if (result.ok) {
        selection
          .getState()
          .select(
            result.applied.flatMap((edit) => (edit.kind === "add_node" ? [edit.node.id] : [])),
          );
      }
    },
    selectAll: () => {
      const current = session.document.getState().document;
      if (current !== null) {
        selection.getState().select(
          current.nodes.map((n) => n.id),
          allEdgeIds(current),
        );
      }
    },
    clearSelection: () => {
      selection.getState().clear();
      setHelp(false);
    },
    fitView: () => {
      void flow.fitView({ padding: 0.15, duration: 300, maxZoom: 1.1 });
    },
    autoLayout: () => {
      void autoLayout();
    },
    toggleHelp: () => {
      setHelp((shown) => !shown);
    },
  };
  useShortcuts(handlers);

  const context: EditorContextValue = useMemo(
    () => ({ session, selection, catalog, canEdit }),
    [session, selection, catalog, canEdit],
  );

  const exportAs = async (format: api.ExportFormat): Promise<void> => {
    try {
      const text = await api.exportPipeline(pipeline.id, format);
      downloadText(
        text,
        `${fileStem(pipeline.name)}.${format === "streamgraph" ? "streamgraph.json" : "plan.json"}`,
      );
    } catch (caught) {
      notify(caught instanceof ApiError ? caught.detail : String(caught));
    }
  };

  return (
    <EditorContext.Provider value={context}>
      <div className="editor" data-testid="editor">
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
            <button
              type="button"
              className="button"
              onClick={handlers.fitView}
              title="Zoom to fit (F)"
            >
              Fit
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
        {status !== "open" && statusDetail !== null && (
          <div className="banner banner--warning" role="status">
            {statusDetail}
          </div>
        )}
        {document === null ? (
          <div className="page-loading">Waiting for the server…</div>
        ) : (
          <div className="editor__body">
            <Palette onNotice={notify} />
            <main className="editor__main">
              <nav className="tabs" aria-label="Views">
                {(
                  [
                    ["canvas", "StreamGraph"],
                    ["jobgraph", "JobGraph"],
                    ["execution", "ExecutionGraph"],
                  ] as const
                ).map(([id, label]) => (
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
                  {plan?.summary != null &&
                    `${plan.summary.vertexCount} job vertices · ${plan.summary.totalSubtasks ?? "?"} subtasks · ${plan.summary.slotsRequired} slots`}
                </span>
              </nav>
              <div className="editor__view">
                <Canvas onNotice={notify} />
                {view === "jobgraph" && plan !== null && (
                  <div className="view-overlay">
                    <JobGraphView
                      plan={plan}
                      document={document}
                      onSelectNodes={(nodes) => {
                        selection.getState().reveal(nodes);
                        setView("canvas");
                      }}
                    />
                  </div>
                )}
                {view === "execution" && (
                  <div className="view-overlay">
                    <ExecutionGraphView pipelineId={pipeline.id} revision={revision} />
                  </div>
                )}
              </div>
              <ProblemsPanel />
            </main>
            <aside className="editor__side">
              <nav className="tabs" aria-label="Side panel">
                <button
                  type="button"
                  className={side === "properties" ? "tab is-active" : "tab"}
                  onClick={() => {
                    setSide("properties");
                  }}
                >
                  Properties
                </button>
                <button
                  type="button"
                  className={side === "versions" ? "tab is-active" : "tab"}
                  onClick={() => {
                    setSide("versions");
                  }}
                  data-testid="side-versions"
                >
                  Versions
                </button>
              </nav>
              <div className="editor__side-body">
                {side === "properties" ? (
                  <Inspector onNotice={notify} />
                ) : (
                  <VersionsPanel
                    pipelineId={pipeline.id}
                    revision={revision}
                    canEdit={canEdit}
                    onOpenDiff={(from, to) => {
                      navigate({ page: "diff", pipeline: pipeline.id, from, to });
                    }}
                  />
                )}
              </div>
            </aside>
          </div>
        )}
        <div className="notices" aria-live="polite">
          {notices.map((n) => (
            <div
              key={n.id}
              className={`notice-toast notice-toast--${n.kind}`}
              role={n.kind === "error" ? "alert" : "status"}
            >
              {n.text}
            </div>
          ))}
        </div>
        {help && (
          <div
            className="help-overlay"
            role="dialog"
            aria-label="Keyboard shortcuts"
            onClick={() => {
              setHelp(false);
            }}
          >
            <div className="help-overlay__card">
              <h2>Keyboard shortcuts</h2>
              <table className="table">
                <tbody>
                  {SHORTCUTS.map(([keys, what]) => (
                    <tr key={keys}>
                      <td>
                        <kbd>{keys}</kbd>
                      </td>
                      <td>{what}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </div>
        )}
      </div>
    </EditorContext.Provider>
  );
}

function PipelineName(props: {
  readonly pipeline: api.PipelineSummary;
  readonly canEdit: boolean;
  readonly onRenamed: (pipeline: api.PipelineSummary) => void;
  readonly onError: (message: string) => void;
}) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(props.pipeline.name);
  if (!editing) {
    return (
      <button
        type="button"
        className="pipeline-name"
        disabled={!props.canEdit}
        title={props.canEdit ? "Rename" : undefined}
        onClick={() => {
          setName(props.pipeline.name);
          setEditing(true);
        }}
      >
        {props.pipeline.name}
      </button>
    );
  }
  return (
    <form
      className="inline-form"
      onSubmit={async (event) => {
        event.preventDefault();
        try {
          props.onRenamed(await api.renamePipeline(props.pipeline.id, name.trim()));
          setEditing(false);
        } catch (caught) {
          props.onError(caught instanceof ApiError ? caught.detail : String(caught));
        }
      }}
    >
      <input
        value={name}
        autoFocus
        onChange={(event) => {
          setName(event.target.value);
        }}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            setEditing(false);
          }
        }}
        required
      />
    </form>
  );
}
