import { useCallback } from "react";

import type { Edit } from "../graph/edits";
import { StatePanel, type Markers } from "../savepoints/StatePanel";
import { useDocumentStore, useEditor, useSessionState } from "./context";

/**
 * The editor's State tab: the working copy checked against the pipeline's savepoints as it
 * is edited, lost state mapped back with one undoable edit, and marks for the canvas.
 */
export function StateTab(props: {
  readonly pipelineId: number;
  readonly onMarkers: (markers: Markers | null) => void;
}) {
  const { session, selection, canEdit } = useEditor();
  const document = useDocumentStore((state) => state.document);
  const revision = useDocumentStore((state) => state.revision);
  const latestVersion = useSessionState((state) => state.versionSaved?.number ?? null);
  // Savepoints are REST: the role decides, not the live connection.
  const canManage = useSessionState((state) => state.you !== null && state.you.role !== "viewer");
  const apply = useCallback(
    (edits: readonly Edit[]): string | null => {
      const result = session.document.getState().applyEdits(edits);
      return result.ok ? null : result.error.message;
    },
    [session],
  );
  const reveal = useCallback(
    (node: number) => {
      selection.getState().reveal([node]);
    },
    [selection],
  );
  if (document === null) {
    return null;
  }
  return (
    <StatePanel
      pipelineId={props.pipelineId}
      revision={revision}
      document={document}
      latestVersion={latestVersion}
      canManage={canManage}
      onApply={canEdit ? apply : null}
      onMarkers={props.onMarkers}
      onReveal={reveal}
    />
  );
}
