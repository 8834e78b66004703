import { useEffect, useRef, useState } from "react";

import * as reviews from "../api/reviews";
import type { StoreApi } from "../store/hooks";
import type { ReviewStore } from "../store/reviews";
import { errorText } from "../ui/useResource";
import { timeAgo } from "../versions/history";
import { CommentForm } from "./CommentForm";
import { CommentView } from "./CommentView";
import { anchorText, kindWord } from "./targets";
import { mayChange, mayResolve, type Viewer } from "./threads";

function writtenOn(thread: reviews.CommentThread): string {
  return thread.version === null
    ? `on the working copy (revision ${thread.revision})`
    : `on version ${thread.version}`;
}

/**
 * One thread: what it is about (a click selects it on the canvas), whether it is
 * outdated where it is read and why, its comments, a reply box, resolve or reopen.
 */
export function ThreadCard(props: {
  readonly thread: reviews.CommentThread;
  readonly store: StoreApi<ReviewStore>;
  readonly viewer: Viewer | null;
  readonly now: number;
  /** The thread is about what is selected on the canvas. */
  readonly onSelection: boolean;
  /** The thread was asked for (a mention opened from the home page): shown in view. */
  readonly focused?: boolean;
  readonly onReveal?: ((thread: reviews.CommentThread) => void) | undefined;
}) {
  const { thread, store, viewer, now } = props;
  const pipeline = thread.pipeline;
  const [problem, setProblem] = useState<string | null>(null);
  const resolved = thread.status === "resolved";
  const item = useRef<HTMLLIElement>(null);
  const focused = props.focused === true;
  useEffect(() => {
    if (focused) {
      item.current?.scrollIntoView({ block: "nearest" });
    }
  }, [focused]);
  const act = (action: () => Promise<void>): void => {
    action().then(
      () => {
        setProblem(null);
      },
      (caught: unknown) => {
        setProblem(errorText(caught));
      },
    );
  };
  const target = `${kindWord(thread.target.kind)}: ${anchorText(thread.target)}`;
  const classes = [
    "thread",
    resolved ? "is-resolved" : "",
    thread.outdated ? "is-outdated" : "",
    props.onSelection || focused ? "is-on-selection" : "",
  ].join(" ");
  return (
    <li
      ref={item}
      className={classes}
      data-testid={`thread-${thread.id}`}
      data-status={thread.status}
      data-outdated={thread.outdated}
    >
      <div className="thread__head">
        {props.onReveal === undefined || thread.target.kind === "pipeline" ? (
          <span className="thread__target">{target}</span>
        ) : (
          <button
            type="button"
            className="link-button thread__target"
            onClick={() => {
              props.onReveal?.(thread);
            }}
            title="Select it on the canvas"
            data-testid={`thread-${thread.id}-target`}
          >
            {target}
          </button>
        )}
        {thread.outdated && (
          <span
            className="thread-chip thread-chip--outdated"
            data-testid={`thread-${thread.id}-outdated`}
          >
            outdated
          </span>
        )}
        {resolved && <span className="thread-chip thread-chip--resolved">resolved</span>}
      </div>
      <p className="thread__where muted">
        {writtenOn(thread)}
        {thread.at !== "working" && ` · read at version ${thread.at}`}
      </p>
      {thread.outdated && (
        <ul className="thread__causes" data-testid={`thread-${thread.id}-causes`}>
          {thread.outdatedCauses.length === 0 ? (
            <li>Its element is not what it was when the thread was opened.</li>
          ) : (
            thread.outdatedCauses.map((cause) => <li key={cause}>{cause}</li>)
          )}
        </ul>
      )}
      <ol className="thread__comments">
        {thread.comments.map((comment) => (
          <CommentView
            key={comment.id}
            comment={comment}
            now={now}
            mayChange={mayChange(comment, viewer)}
            onEdit={async (body) => {
              store
                .getState()
                .putComment(
                  thread.id,
                  await reviews.editComment(pipeline, thread.id, comment.id, body),
                );
            }}
            onDelete={async () => {
              await reviews.deleteComment(pipeline, thread.id, comment.id);
              store.getState().putComment(thread.id, { ...comment, body: "", deleted: true });
            }}
          />
        ))}
      </ol>
      {resolved && (
        <p className="muted thread__resolution">
          Resolved by {thread.resolvedBy?.username ?? "a former member"}
          {thread.resolvedAt !== null && ` · ${timeAgo(thread.resolvedAt, now)}`}
        </p>
      )}
      {!resolved && (
        <CommentForm
          label={`Reply to the thread on ${target}`}
          submitLabel="Reply"
          placeholder="Reply; @username mentions a member"
          onSubmit={async (body) => {
            store
              .getState()
              .putComment(thread.id, await reviews.replyToThread(pipeline, thread.id, body));
          }}
          testId={`thread-${thread.id}-reply`}
        />
      )}
      {mayResolve(thread, viewer) && (
        <div className="thread__actions">
          <button
            type="button"
            className="button button--small"
            onClick={() => {
              act(async () => {
                const answer = resolved
                  ? await reviews.reopenThread(pipeline, thread.id)
                  : await reviews.resolveThread(pipeline, thread.id);
                store.getState().put(answer);
              });
            }}
            data-testid={`thread-${thread.id}-${resolved ? "reopen" : "resolve"}`}
          >
            {resolved ? "Reopen" : "Resolve"}
          </button>
        </div>
      )}
      {problem !== null && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
    </li>
  );
}
