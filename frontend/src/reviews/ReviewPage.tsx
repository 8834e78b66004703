import { useCallback, useEffect, useMemo, useState } from "react";

import { navigate } from "../app/router";
import * as api from "../api/resources";
import * as reviews from "../api/reviews";
import { CanvasBadges } from "../canvas/badges";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { useAccount } from "../store/account";
import { useStore } from "../store/hooks";
import { useNow } from "../ui/useNow";
import { useResource } from "../ui/useResource";
import { DiffCanvas } from "../versions/DiffCanvas";
import { diffGraph } from "../versions/diffModel";
import { DiffDetails } from "../versions/DiffSidePanel";
import { useCommentBadges } from "./CommentBadges";
import { CommentsPanel } from "./CommentsPanel";
import { ReviewChip } from "./ReviewChip";
import { ReviewFeed } from "./reviewFeed";
import { ReviewPanel } from "./ReviewPanel";
import { accessChangedText, LOST_ACCESS, newsText } from "./states";
import { targetChoices, WHOLE_PIPELINE } from "./targets";
import { ElementCounts } from "./threads";
import { useCommentSummary } from "./useComments";
import { useWorkspaceViewer } from "./useWorkspaceViewer";
import "../versions/versions.css";
import "./reviews.css";

type Tab = "review" | "comments" | "changes";

interface Comparison {
  readonly pipeline: api.PipelineDetail;
  /** The version compared with: the last approved one before, else the one before. */
  readonly base: number;
  readonly diff: api.PlanDiff;
  readonly before: StreamGraphDocument;
  readonly after: StreamGraphDocument;
}

/**
 * A saved version's review: its graph with what changed since the last approved version
 * (or the one before), the review with the state it puts at risk and the reviewer's
 * answer, the threads read at the version (new ones are written on it, about the node
 * picked on the canvas), and the changes on all three graph levels. Review requests,
 * verdicts and comments arrive live over the pipeline's socket, and so does the user's own
 * access: a role an owner changes applies at once, and a removal closes the review.
 */
export function ReviewPage(props: { readonly pipelineId: number; readonly version: number }) {
  const { pipelineId, version } = props;
  const user = useAccount((state) => state.user ?? null);
  const [feed] = useState(() => new ReviewFeed(pipelineId));
  useEffect(() => {
    feed.connect();
    return () => {
      feed.close();
    };
  }, [feed]);
  const news = useStore(feed.store, (state) => state.news);
  const you = useStore(feed.session, (state) => state.you);
  const connection = useStore(feed.session, (state) => state.status);
  const refusal = useStore(feed.session, (state) => state.detail);
  const accessChanged = useStore(feed.session, (state) => state.accessChanged);
  // Refused after it was open: the user lost access while looking.
  const lostAccess = connection === "refused" && you !== null;
  // This page's own answer, shown over the review it answered until a newer one is read.
  const [answered, setAnswered] = useState<{
    readonly review: reviews.VersionReview;
    readonly over: reviews.VersionReview | null;
  } | null>(null);

  const loadReview = useCallback(
    (signal: AbortSignal) => reviews.getVersionReview(pipelineId, version, signal),
    [pipelineId, version],
  );
  // Read again on news and when the user's role changes: what their verdicts weigh does.
  const fetched = useResource(
    loadReview,
    `${pipelineId}:${version}:${news?.serial ?? 0}:${you?.role ?? ""}`,
    200,
  );
  const review =
    answered !== null && fetched.data === answered.over ? answered.review : fetched.data;

  const base =
    fetched.data === null
      ? null
      : (fetched.data.stateCheck.reference ?? (version > 1 ? version - 1 : version));
  const loadComparison = useCallback(
    async (signal: AbortSignal): Promise<Comparison | null> => {
      if (base === null) {
        return null;
      }
      const [pipeline, diff, before, after] = await Promise.all([
        api.getPipeline(pipelineId, signal),
        api.getDiff(pipelineId, base, version, signal),
        api.getVersion(pipelineId, base, signal),
        api.getVersion(pipelineId, version, signal),
      ]);
      // The first version has nothing before it: no state is kept or lost by anything.
      const compared = base === version ? { ...diff, savepoint: null } : diff;
      return { pipeline, base, diff: compared, before: before.document, after: after.document };
    },
    [pipelineId, version, base],
  );
  const comparison = useResource(loadComparison, `${pipelineId}:${version}:${String(base)}`);
  const compared = comparison.data;
  const graph = useMemo(
    () => (compared === null ? null : diffGraph(compared.before, compared.after, compared.diff)),
    [compared],
  );

  const fetchedViewer = useWorkspaceViewer(compared?.pipeline.workspace ?? null);
  const viewer = user !== null && you !== null ? { user, role: you.role } : fetchedViewer;
  const [tab, setTab] = useState<Tab>("review");
  const [picked, setPicked] = useState<number | null>(null);
  const now = useNow();

  useCommentSummary(pipelineId, version, feed.store);
  const summary = useStore(feed.store, (state) =>
    state.summary?.at === version ? state.summary : null,
  );
  const counts = useMemo(() => new ElementCounts(summary), [summary]);
  const badgesOf = useCommentBadges(counts);
  const choices = useMemo(() => {
    if (compared === null || picked === null) {
      return [WHOLE_PIPELINE];
    }
    return targetChoices({ nodes: new Set([picked]), edges: new Set() }, compared.after, null);
  }, [compared, picked]);
  const heard = news?.message.version === version ? newsText(news.message, user?.id ?? null) : null;
  const error =
    connection === "refused" && !lostAccess ? refusal : (fetched.error ?? comparison.error);

  return (
    <div className="diff-page review-page" data-testid="review-page">
      <header className="topbar">
        <button
          type="button"
          className="button"
          onClick={() => {
            navigate({ page: "editor", pipeline: pipelineId });
          }}
          data-testid="review-close"
        >
          ← Back to the editor
        </button>
        <h1 className="diff-page__title">
          {compared?.pipeline.name ?? "Pipeline"}: review of version {version}
        </h1>
        {review !== null && <ReviewChip state={review.state} testId="review-page-state" />}
        <span className="topbar__spacer" />
        {compared !== null && compared.base !== version && (
          <span className="muted" data-testid="review-base">
            Changes since version {compared.base}
            {review?.stateCheck.reference === compared.base ? ", the last approved one" : ""}
          </span>
        )}
      </header>
      {heard !== null && !lostAccess && (
        <p className="review-page__news" role="status" data-testid="review-news">
          {heard.text}
        </p>
      )}
      {accessChanged !== null && !lostAccess && (
        <p className="review-page__news" role="status" data-testid="review-access-changed">
          {accessChangedText(accessChanged.you.role)}
        </p>
      )}
      {lostAccess ? (
        <div className="page-message" data-testid="review-lost-access">
          <h2>{LOST_ACCESS}</h2>
          <p className="muted">{refusal}</p>
        </div>
      ) : (
        error !== null && (
          <div className="page-message">
            <h2>Cannot open this review</h2>
            <p className="form-error">{error}</p>
          </div>
        )
      )}
      {lostAccess ? null : review === null || compared === null || graph === null ? (
        error === null && <div className="page-loading">Opening the review…</div>
      ) : (
        <div className="diff-page__body">
          <div className="diff-page__canvas">
            <CanvasBadges badgesOf={badgesOf}>
              <DiffCanvas
                graph={graph}
                focus={null}
                picked={picked}
                onPick={(node) => {
                  setPicked(node);
                  setTab("comments");
                }}
              />
            </CanvasBadges>
          </div>
          <aside className="diff-page__side review-page__side">
            <nav className="tabs" aria-label="Review">
              {(
                [
                  ["review", "Review"],
                  ["comments", "Comments"],
                  ["changes", "Changes"],
                ] as const
              ).map(([id, label]) => (
                <button
                  key={id}
                  type="button"
                  className={tab === id ? "tab is-active" : "tab"}
                  onClick={() => {
                    setTab(id);
                  }}
                  data-testid={`review-tab-${id}`}
                >
                  {label}
                </button>
              ))}
            </nav>
            {tab === "review" && (
              <ReviewPanel
                review={review}
                workspaceId={compared.pipeline.workspace}
                viewer={viewer}
                now={now}
                onChanged={(answer) => {
                  setAnswered({ review: answer, over: fetched.data });
                }}
              />
            )}
            {tab === "comments" && (
              <CommentsPanel
                pipelineId={pipelineId}
                at={version}
                store={feed.store}
                viewer={viewer}
                choices={choices}
                selected={new Set(choices.map((choice) => choice.key))}
              />
            )}
            {tab === "changes" && (
              <div className="review-page__changes">
                <DiffDetails
                  diff={compared.diff}
                  graph={graph}
                  onReveal={(node) => {
                    setPicked(node);
                  }}
                />
              </div>
            )}
          </aside>
        </div>
      )}
    </div>
  );
}
