import { useState } from "react";

import type { CommentEntry } from "../api/reviews";
import { colourOf, initialOf } from "../ui/avatar";
import { timeAgo } from "../versions/history";
import { CommentBody } from "./CommentBody";
import { CommentForm } from "./CommentForm";

/** One comment of a thread: who, when, what; its author edits and deletes it. */
export function CommentView(props: {
  readonly comment: CommentEntry;
  readonly now: number;
  readonly mayChange: boolean;
  readonly onEdit: (body: string) => Promise<void>;
  readonly onDelete: () => Promise<void>;
}) {
  const { comment, now } = props;
  const [editing, setEditing] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const author = comment.author?.username ?? "a former member";
  return (
    <li className="comment" data-testid={`comment-${comment.id}`}>
      <div className="comment__head">
        <span
          className="avatar avatar--tiny"
          style={{ background: colourOf(comment.author?.id ?? 0) }}
          aria-hidden="true"
        >
          {initialOf(author)}
        </span>
        <strong className="comment__author">{author}</strong>
        <time className="muted" dateTime={comment.createdAt} title={comment.createdAt}>
          {timeAgo(comment.createdAt, now)}
        </time>
        {comment.editedAt !== null && !comment.deleted && (
          <span className="muted" title={`Edited ${comment.editedAt}`}>
            (edited)
          </span>
        )}
      </div>
      {editing ? (
        <CommentForm
          label="Edit your comment"
          submitLabel="Save"
          initial={comment.body}
          keep
          onSubmit={async (body) => {
            await props.onEdit(body);
            setEditing(false);
          }}
          onCancel={() => {
            setEditing(false);
          }}
          testId={`comment-${comment.id}-edit`}
        />
      ) : comment.deleted ? (
        <p className="comment__body muted">(deleted)</p>
      ) : (
        <CommentBody body={comment.body} mentions={comment.mentions} />
      )}
      {props.mayChange && !editing && (
        <div className="comment__actions">
          <button
            type="button"
            className="link-button"
            onClick={() => {
              setEditing(true);
            }}
            aria-label={`Edit your comment of ${comment.createdAt}`}
            data-testid={`comment-${comment.id}-edit`}
          >
            Edit
          </button>
          <button
            type="button"
            className="link-button"
            onClick={() => {
              if (window.confirm("Delete this comment? It stays in the thread, empty.")) {
                props.onDelete().then(
                  () => {
                    setProblem(null);
                  },
                  (caught: unknown) => {
                    setProblem(caught instanceof Error ? caught.message : String(caught));
                  },
                );
              }
            }}
            aria-label={`Delete your comment of ${comment.createdAt}`}
            data-testid={`comment-${comment.id}-delete`}
          >
            Delete
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
