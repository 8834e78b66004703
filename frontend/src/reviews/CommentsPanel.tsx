import { useState } from "react";

import type { CommentThread, VersionAt } from "../api/reviews";
import { useStore, type StoreApi } from "../store/hooks";
import type { ReviewStore } from "../store/reviews";
import { useNow } from "../ui/useNow";
import { versionLabel } from "../versions/history";
import { NewThreadForm } from "./NewThreadForm";
import { anchorKey, type TargetChoice } from "./targets";
import { ThreadCard } from "./ThreadCard";
import { countByFilter, filterOf, THREAD_FILTERS, type ThreadFilter, type Viewer } from "./threads";
import { useThreadList } from "./useComments";
import "./reviews.css";

/**
 * A pipeline's comment threads read at a version or the working copy (`at`): filtered
 * open / outdated / resolved, those about the selection first, and a form that opens a
 * thread on the selection or the whole pipeline.
 */
export function CommentsPanel(props: {
  readonly pipelineId: number;
  readonly at: VersionAt;
  readonly store: StoreApi<ReviewStore>;
  readonly viewer: Viewer | null;
  /** What a new thread may be about; none: no new threads here. */
  readonly choices: readonly TargetChoice[];
  /** Threads about these targets (`TargetChoice.key`) are listed first. */
  readonly selected?: ReadonlySet<string>;
  /** Read the threads again when this changes (the document's revision). */
  readonly refreshKey?: string;
  readonly onReveal?: (thread: CommentThread) => void;
  /** A thread to show at once whatever the filter (opened from a mention). */
  readonly focusThread?: number | null;
}) {
  const { pipelineId, at, store, viewer } = props;
  const threads = useStore(store, (state) => (state.at === at ? state.threads : null));
  const next = useStore(store, (state) => state.next);
  const { error, loadMore } = useThreadList(pipelineId, at, store, props.refreshKey);
  const [filter, setFilter] = useState<ThreadFilter>("open");
  const now = useNow();
  const counts = countByFilter(threads ?? []);
  const focus = props.focusThread ?? null;
  const shown = (threads ?? []).filter(
    (thread) => filterOf(thread) === filter || thread.id === focus,
  );
  const selected = props.selected ?? new Set<string>();
  const onSelection = (thread: CommentThread): boolean =>
    thread.target.kind !== "pipeline" && selected.has(anchorKey(thread.target));
  const ordered = [...shown.filter(onSelection), ...shown.filter((t) => !onSelection(t))];

  return (
    <div className="comments" data-testid="comments-panel" data-at={String(at)}>
      <p className="muted comments__at">Threads read at {versionLabel(at)}.</p>
      {props.choices.length > 0 && (
        <NewThreadForm
          pipelineId={pipelineId}
          version={at === "working" ? null : at}
          choices={props.choices}
          store={store}
        />
      )}
      <div className="comments__filters" role="group" aria-label="Show threads">
        {THREAD_FILTERS.map(([id, label]) => (
          <button
            key={id}
            type="button"
            className={filter === id ? "tab is-active" : "tab"}
            aria-pressed={filter === id}
            onClick={() => {
              setFilter(id);
            }}
            data-testid={`comments-filter-${id}`}
          >
            {label} <span className="comments__count">{counts[id]}</span>
          </button>
        ))}
      </div>
      {error !== null && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {threads === null ? (
        error === null && <p className="muted">Loading…</p>
      ) : ordered.length === 0 ? (
        <p className="muted" data-testid="comments-empty">
          {filter === "open"
            ? "No open threads."
            : filter === "outdated"
              ? "No outdated threads."
              : "No resolved threads."}
        </p>
      ) : (
        <ol className="thread-list">
          {ordered.map((thread) => (
            <ThreadCard
              key={thread.id}
              thread={thread}
              store={store}
              viewer={viewer}
              now={now}
              onSelection={onSelection(thread)}
              focused={thread.id === focus}
              onReveal={props.onReveal}
            />
          ))}
        </ol>
      )}
      {next !== null && threads !== null && (
        <button type="button" className="button button--small" onClick={() => void loadMore()}>
          Load more threads
        </button>
      )}
    </div>
  );
}
