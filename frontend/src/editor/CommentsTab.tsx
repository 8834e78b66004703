import { useCallback, useMemo } from "react";

import type { CommentThread } from "../api/reviews";
import { CommentsPanel } from "../reviews/CommentsPanel";
import { anchorText, revealTarget, targetChoices } from "../reviews/targets";
import { useDocumentStore, useEditor, useSelection } from "./context";
import type { Notify } from "./notices";
import { useViewer } from "./useViewer";

/**
 * The editor's comments: threads read at the working copy (again after edits), new
 * threads on what is selected, and a click on a thread selects and centres its target.
 */
export function CommentsTab(props: {
  readonly pipelineId: number;
  readonly notify: Notify;
  readonly focusThread: number | null;
}) {
  const { session, selection } = useEditor();
  const document = useDocumentStore((state) => state.document);
  const plan = useDocumentStore((state) => state.plan);
  const revision = useDocumentStore((state) => state.revision);
  const nodes = useSelection((state) => state.nodes);
  const edges = useSelection((state) => state.edges);
  const viewer = useViewer();
  const choices = useMemo(
    () => targetChoices({ nodes, edges }, document, plan),
    [nodes, edges, document, plan],
  );
  const selected = useMemo(() => new Set(choices.map((choice) => choice.key)), [choices]);
  const { notify } = props;
  const reveal = useCallback(
    (thread: CommentThread) => {
      const current = session.document.getState();
      const target =
        current.document === null
          ? null
          : revealTarget(thread.target, current.document, current.plan);
      if (target === null) {
        notify(`${anchorText(thread.target)} is not in the working copy any more.`, "info");
      } else {
        selection.getState().reveal(target.nodes, target.edge);
      }
    },
    [session, selection, notify],
  );
  return (
    <CommentsPanel
      pipelineId={props.pipelineId}
      at="working"
      store={session.reviews}
      viewer={viewer}
      choices={choices}
      selected={selected}
      refreshKey={String(revision)}
      onReveal={reveal}
      focusThread={props.focusThread}
    />
  );
}
