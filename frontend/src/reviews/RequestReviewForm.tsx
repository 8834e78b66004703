import { useCallback, useId, useState } from "react";

import { listMembers } from "../api/resources";
import * as reviews from "../api/reviews";
import { useAccount } from "../store/account";
import { useResource } from "../ui/useResource";
import { errorLines } from "./errors";

/**
 * Asks members of the workspace to review a version (the latest one), with a message.
 * Everyone but the one asking is offered; the server says who may not be asked.
 */
export function RequestReviewForm(props: {
  readonly pipelineId: number;
  readonly workspaceId: number;
  readonly version: number;
  readonly onRequested: (review: reviews.VersionReview) => void;
  readonly onCancel: () => void;
}) {
  const me = useAccount((state) => state.user);
  const load = useCallback(() => listMembers(props.workspaceId), [props.workspaceId]);
  const members = useResource(load, String(props.workspaceId));
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [message, setMessage] = useState("");
  const [errors, setErrors] = useState<readonly string[]>([]);
  const [sending, setSending] = useState(false);
  const messageId = useId();
  const others = (members.data ?? []).filter((member) => member.user.id !== me?.id);

  const submit = async (): Promise<void> => {
    setSending(true);
    try {
      const review = await reviews.requestReview(
        props.pipelineId,
        props.version,
        [...chosen],
        message.trim(),
      );
      setErrors([]);
      props.onRequested(review);
    } catch (caught) {
      setErrors(errorLines(caught));
    } finally {
      setSending(false);
    }
  };

  return (
    <form
      className="request-review"
      data-testid={`request-review-form-${props.version}`}
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <fieldset className="request-review__members">
        <legend>Ask to review version {props.version}</legend>
        {members.error !== null && <p className="form-error">{members.error}</p>}
        {members.data !== null && others.length === 0 && (
          <p className="muted">Nobody else is in this workspace: add members on the home page.</p>
        )}
        {others.map((member) => (
          <label key={member.user.id} className="request-review__member">
            <input
              type="checkbox"
              checked={chosen.has(member.user.username)}
              onChange={(event) => {
                const next = new Set(chosen);
                if (event.target.checked) {
                  next.add(member.user.username);
                } else {
                  next.delete(member.user.username);
                }
                setChosen(next);
              }}
              data-testid={`reviewer-${member.user.username}`}
            />
            {member.user.username} <span className="role-pill">{member.role}</span>
          </label>
        ))}
      </fieldset>
      <label htmlFor={messageId} className="request-review__label">
        Message
      </label>
      <textarea
        id={messageId}
        rows={2}
        value={message}
        maxLength={2000}
        placeholder="What should the reviewers look at?"
        onChange={(event) => {
          setMessage(event.target.value);
        }}
        data-testid="request-review-message"
      />
      <div className="request-review__actions">
        <button
          type="submit"
          className="button button--small button--primary"
          disabled={sending || chosen.size === 0}
          data-testid="request-review-submit"
        >
          Request review
        </button>
        <button type="button" className="button button--small" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
      {errors.length > 0 && (
        <div className="form-error" role="alert" data-testid="request-review-error">
          {errors.map((line) => (
            <p key={line}>{line}</p>
          ))}
        </div>
      )}
    </form>
  );
}
