import { useMemo, useState } from "react";

import type { CommentThread, VersionAt } from "../api/reviews";
import type { BadgesOf } from "../canvas/badges";
import { useStore, type StoreApi } from "../store/hooks";
import { createReviewStore, type ReviewStore } from "../store/reviews";
import { versionName } from "../versions/history";
import { useCommentBadges } from "./CommentBadges";
import { CommentsPanel } from "./CommentsPanel";
import { ElementCounts, SidedCounts, type Viewer } from "./threads";
import { useCommentSummary } from "./useComments";

export interface DiffSides {
  readonly older: StoreApi<ReviewStore>;
  readonly newer: StoreApi<ReviewStore>;
}

/**
 * The threads of both sides of a diff, each read where it is: a review store per side,
 * their counts kept read, and the badges of the diff's canvas (the newer version's for
 * its elements, the older one's for those it removed).
 */
export function useDiffComments(
  pipelineId: number,
  from: VersionAt,
  to: VersionAt,
  removed: { readonly nodes: ReadonlySet<number>; readonly edges: ReadonlySet<string> } | null,
): { readonly sides: DiffSides; readonly badgesOf: BadgesOf; readonly open: number | null } {
  const [sides] = useState<DiffSides>(() => ({
    older: createReviewStore(),
    newer: createReviewStore(),
  }));
  useCommentSummary(pipelineId, from, sides.older);
  useCommentSummary(pipelineId, to, sides.newer);
  const older = useStore(sides.older, (state) =>
    state.summary?.at === from ? state.summary : null,
  );
  const newer = useStore(sides.newer, (state) => (state.summary?.at === to ? state.summary : null));
  const counts = useMemo(
    () =>
      new SidedCounts(
        new ElementCounts(newer),
        new ElementCounts(older),
        removed ?? { nodes: new Set(), edges: new Set() },
      ),
    [newer, older, removed],
  );
  const badgesOf = useCommentBadges(counts);
  const open =
    newer === null || older === null
      ? null
      : Math.max(newer.total.open + newer.total.outdated, older.total.open + older.total.outdated);
  return { sides, badgesOf, open };
}

/** Both sides' threads, the older first, each read at its own version. */
export function DiffThreads(props: {
  readonly pipelineId: number;
  readonly from: VersionAt;
  readonly to: VersionAt;
  readonly sides: DiffSides;
  readonly viewer: Viewer | null;
  readonly onReveal: (thread: CommentThread) => void;
}) {
  const sides = [
    ["older", props.from, props.sides.older],
    ["newer", props.to, props.sides.newer],
  ] as const;
  return (
    <div className="diff-threads" data-testid="diff-threads">
      {sides.map(([side, at, store]) => (
        <section key={side} data-testid={`diff-threads-${side}`}>
          <h2>{versionName(at)}</h2>
          <CommentsPanel
            pipelineId={props.pipelineId}
            at={at}
            store={store}
            viewer={props.viewer}
            choices={[]}
            onReveal={props.onReveal}
          />
        </section>
      ))}
    </div>
  );
}
