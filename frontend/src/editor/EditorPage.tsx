import { ReactFlowProvider } from "@xyflow/react";
import { useCallback, useEffect, useMemo, useState } from "react";

import { navigate } from "../app/router";
import { ApiError } from "../api/http";
import * as api from "../api/resources";
import type { CanvasElement } from "../canvas/badges";
import type { Markers } from "../savepoints/StatePanel";
import { useStateMarkerBadges } from "../savepoints/StateMarkers";
import { useStore } from "../store/hooks";
import { createSelectionStore } from "../store/selection";
import { EditorBadges } from "./EditorBadges";
import { EditorContext, type EditorContextValue } from "./context";
import { EditorTopBar } from "./EditorTopBar";
import { EditorViews } from "./EditorViews";
import { Notices, useNotices } from "./notices";
import { Palette } from "./Palette";
import { EditorSession } from "./session";
import { ShortcutHelp } from "./ShortcutHelp";
import { SidePanel, type Side } from "./SidePanel";
import { useEditorCommands } from "./useEditorCommands";
import { useEditorSync } from "./useEditorSync";
import { useShortcuts } from "./useShortcuts";
import "./editor.css";

/** The editor of one pipeline: loads it, opens its live connection, and lays out the panels. */
export default function EditorPage({
  pipelineId,
  thread = null,
}: {
  readonly pipelineId: number;
  /** A comment thread to show at once (a mention opened from the home page). */
  readonly thread?: number | null;
}) {
  const [pipeline, setPipeline] = useState<api.PipelineSummary | null>(null);
  const [catalog, setCatalog] = useState<api.Catalog | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [session] = useState(() => new EditorSession(pipelineId));

  useEffect(() => {
    let live = true;
    // Not the document: a large one comes once, in the socket's snapshot.
    Promise.all([api.getPipelineSummary(pipelineId), api.getCatalog()])
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
      <Editor
        pipeline={pipeline}
        catalog={catalog}
        session={session}
        onRenamed={setPipeline}
        focusThread={thread}
      />
    </ReactFlowProvider>
  );
}

function Editor(props: {
  readonly pipeline: api.PipelineSummary;
  readonly catalog: api.Catalog;
  readonly session: EditorSession;
  readonly onRenamed: (pipeline: api.PipelineSummary) => void;
  readonly focusThread: number | null;
}) {
  const { pipeline, catalog, session } = props;
  const [side, setSide] = useState<Side>(props.focusThread === null ? "properties" : "comments");
  const selection = useMemo(() => createSelectionStore(), []);
  const status = useStore(session.state, (state) => state.status);
  const statusDetail = useStore(session.state, (state) => state.detail);
  const you = useStore(session.state, (state) => state.you);
  const hasDocument = useStore(session.document, (state) => state.document !== null);
  const [help, setHelp] = useState(false);
  const [finding, setFinding] = useState(false);
  // The State tab's marks: shown on the canvas while it is open.
  const [stateMarkers, setStateMarkers] = useState<Markers | null>(null);
  const stateBadges = useStateMarkerBadges(stateMarkers);
  const { notices, notify } = useNotices();
  const canEdit = status === "open" && you !== null && you.role !== "viewer";

  useEditorSync(session, selection, notify);
  const { handlers, layingOut } = useEditorCommands({
    session,
    selection,
    canEdit,
    notify,
    toggleHelp: () => {
      setHelp((shown) => !shown);
    },
    closeHelp: () => {
      setHelp(false);
    },
    openFind: () => {
      setFinding(true);
    },
  });
  useShortcuts(handlers);

  // A badge on the canvas opens its element's threads.
  const openComments = useCallback(
    (element: CanvasElement) => {
      const plan = session.document.getState().plan;
      if (element.kind === "node") {
        selection.getState().select([element.node]);
      } else if (element.kind === "edge") {
        selection.getState().select([], [element.edge]);
      } else {
        const head = plan?.vertices[element.vertex]?.head;
        selection.getState().select(head === undefined ? [] : [head]);
      }
      setSide("comments");
    },
    [session, selection],
  );

  const context: EditorContextValue = useMemo(
    () => ({ session, selection, catalog, canEdit }),
    [session, selection, catalog, canEdit],
  );

  return (
    <EditorContext.Provider value={context}>
      <div className="editor" data-testid="editor">
        <EditorTopBar
          pipeline={pipeline}
          onRenamed={props.onRenamed}
          notify={notify}
          handlers={handlers}
          layingOut={layingOut}
        />
        {status !== "open" && statusDetail !== null && (
          <div className="banner banner--warning" role="status">
            {statusDetail}
          </div>
        )}
        {hasDocument ? (
          <EditorBadges pipelineId={pipeline.id} onOpen={openComments} extra={stateBadges}>
            <div className="editor__body">
              <Palette onNotice={notify} />
              <EditorViews
                pipelineId={pipeline.id}
                notify={notify}
                finding={finding}
                onFindClosed={() => {
                  setFinding(false);
                }}
              />
              <SidePanel
                pipelineId={pipeline.id}
                workspaceId={pipeline.workspace}
                notify={notify}
                side={side}
                onSide={setSide}
                focusThread={props.focusThread}
                onStateMarkers={setStateMarkers}
              />
            </div>
          </EditorBadges>
        ) : (
          <div className="page-loading">Waiting for the server…</div>
        )}
        <Notices notices={notices} />
        {help && (
          <ShortcutHelp
            onClose={() => {
              setHelp(false);
            }}
          />
        )}
      </div>
    </EditorContext.Provider>
  );
}
