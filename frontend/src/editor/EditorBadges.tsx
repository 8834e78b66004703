import { useMemo, type ReactNode } from "react";

import { CanvasBadges, combineBadges, type BadgesOf, type CanvasElement } from "../canvas/badges";
import { useCommentBadges } from "../reviews/CommentBadges";
import { ElementCounts } from "../reviews/threads";
import { useCommentSummary } from "../reviews/useComments";
import { useStore } from "../store/hooks";
import { useDocumentStore, useEditor } from "./context";

/**
 * The badges of the editor's canvas: open comment threads per operator, chain and edge,
 * read at the working copy again after edits and after others' comments; then those of
 * other features (`extra`, such as the State tab's marks), beside them.
 */
export function EditorBadges(props: {
  readonly pipelineId: number;
  readonly onOpen: (element: CanvasElement) => void;
  readonly extra?: BadgesOf | null;
  readonly children: ReactNode;
}) {
  const { session } = useEditor();
  const revision = useDocumentStore((state) => state.revision);
  useCommentSummary(props.pipelineId, "working", session.reviews, String(revision));
  const summary = useStore(session.reviews, (state) =>
    state.summary?.at === "working" ? state.summary : null,
  );
  const counts = useMemo(() => new ElementCounts(summary), [summary]);
  const comments = useCommentBadges(counts, props.onOpen);
  const extra = props.extra ?? null;
  const badgesOf = useMemo(
    () => (extra === null ? comments : combineBadges(comments, extra)),
    [comments, extra],
  );
  return <CanvasBadges badgesOf={badgesOf}>{props.children}</CanvasBadges>;
}
