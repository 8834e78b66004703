import { useState } from "react";

import { navigate } from "../app/router";
import { RunsPanel } from "../runs/RunsPanel";
import { useStore } from "../store/hooks";
import { VersionsPanel } from "../versions/VersionsPanel";
import { useDocumentStore, useEditor } from "./context";
import { Inspector } from "./Inspector";
import type { Notify } from "./notices";

type Side = "properties" | "versions" | "runs";

/** The right-hand panel: the inspector, the pipeline's versions, or its runs. */
export function SidePanel({
  pipelineId,
  notify,
}: {
  readonly pipelineId: number;
  readonly notify: Notify;
}) {
  const { canEdit, selection, session } = useEditor();
  const revision = useDocumentStore((state) => state.revision);
  const latestVersion = useStore(session.state, (state) => state.versionSaved?.number ?? null);
  const latestRun = useStore(session.state, (state) => state.runStarted?.run ?? null);
  const isOwner = useStore(session.state, (state) => state.you?.role === "owner");
  const [side, setSide] = useState<Side>("properties");
  return (
    <aside className="editor__side">
      <nav className="tabs" aria-label="Side panel">
        <button
          type="button"
          className={side === "properties" ? "tab is-active" : "tab"}
          onClick={() => {
            setSide("properties");
          }}
          data-testid="side-properties"
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
        <button
          type="button"
          className={side === "runs" ? "tab is-active" : "tab"}
          onClick={() => {
            setSide("runs");
          }}
          data-testid="side-runs"
        >
          Runs
        </button>
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
          />
        )}
        {side === "runs" && <RunsPanel pipelineId={pipelineId} latestRun={latestRun} />}
      </div>
    </aside>
  );
}
