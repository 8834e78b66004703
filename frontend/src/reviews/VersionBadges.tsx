import { useMemo, useState, type ReactNode } from "react";

import { CanvasBadges } from "../canvas/badges";
import { useStore } from "../store/hooks";
import { createReviewStore } from "../store/reviews";
import { useCommentBadges } from "./CommentBadges";
import { ElementCounts } from "./threads";
import { useCommentSummary } from "./useComments";

/**
 * The open-thread badges of a canvas that draws one saved version (the run page's),
 * read at that version when the page opens.
 */
export function VersionBadges(props: {
  readonly pipelineId: number;
  readonly version: number;
  readonly children: ReactNode;
}) {
  const { pipelineId, version } = props;
  const [store] = useState(createReviewStore);
  useCommentSummary(pipelineId, version, store);
  const summary = useStore(store, (state) =>
    state.summary?.at === version ? state.summary : null,
  );
  const counts = useMemo(() => new ElementCounts(summary), [summary]);
  const badgesOf = useCommentBadges(counts);
  return <CanvasBadges badgesOf={badgesOf}>{props.children}</CanvasBadges>;
}
