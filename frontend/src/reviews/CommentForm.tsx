import { useId, useState } from "react";

import { errorLines } from "./errors";

/** The longest comment the server takes. */
const MAX_CHARS = 10_000;

/**
 * A text box for a comment (a new thread, a reply, an edit) or any other text the server
 * keeps (a revocation's reason) with its button; what the server refuses (an unknown
 * `@mention`, named) is shown under it and the text is kept.
 */
export function CommentForm(props: {
  readonly label: string;
  readonly submitLabel: string;
  readonly initial?: string;
  readonly placeholder?: string;
  /** The longest text the server takes (a comment's by default). */
  readonly maxChars?: number;
  /** Resolves when the server took it; a rejection is shown. */
  readonly onSubmit: (body: string) => Promise<void>;
  readonly onCancel?: () => void;
  /** Prefix of the test ids: `<id>-body`, `<id>-submit`, `<id>-error`. */
  readonly testId: string;
  /** Kept open with its text after sending (the first comment of a new thread is not). */
  readonly keep?: boolean;
}) {
  const [body, setBody] = useState(props.initial ?? "");
  const [errors, setErrors] = useState<readonly string[]>([]);
  const [sending, setSending] = useState(false);
  const id = useId();
  const submit = async (): Promise<void> => {
    if (body.trim() === "" || sending) {
      return;
    }
    setSending(true);
    try {
      await props.onSubmit(body);
      setErrors([]);
      if (props.keep !== true) {
        setBody("");
      }
    } catch (caught) {
      setErrors(errorLines(caught));
    } finally {
      setSending(false);
    }
  };
  return (
    <form
      className="comment-form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <label htmlFor={id} className="visually-hidden">
        {props.label}
      </label>
      <textarea
        id={id}
        rows={2}
        value={body}
        maxLength={props.maxChars ?? MAX_CHARS}
        placeholder={props.placeholder ?? "Write a comment; @username mentions a member"}
        onChange={(event) => {
          setBody(event.target.value);
        }}
        onKeyDown={(event) => {
          if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            void submit();
          }
        }}
        data-testid={`${props.testId}-body`}
      />
      <div className="comment-form__actions">
        <button
          type="submit"
          className="button button--small button--primary"
          disabled={sending || body.trim() === ""}
          data-testid={`${props.testId}-submit`}
        >
          {props.submitLabel}
        </button>
        {props.onCancel !== undefined && (
          <button type="button" className="button button--small" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
      {errors.length > 0 && (
        <div className="form-error" role="alert" data-testid={`${props.testId}-error`}>
          {errors.map((line) => (
            <p key={line}>{line}</p>
          ))}
        </div>
      )}
    </form>
  );
}
