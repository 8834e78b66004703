import { useId } from "react";

export interface ConfirmBoxProps {
  readonly question: string;
  /** What will happen, said before it does. */
  readonly consequence: string;
  /** The label of the button that does it. */
  readonly confirm: string;
  readonly danger: boolean;
  /** The request is on its way: the buttons wait. */
  readonly busy: boolean;
  /** Why the server refused; the box then offers only to close. */
  readonly refusal: string | null;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
}

/**
 * A confirmation asked in the page, beside what it is about, instead of the browser's
 * `window.confirm`: it says what will happen and keeps the server's refusal in view.
 * Cancel has the focus, so Enter alone does nothing harmful; Escape cancels.
 */
export function ConfirmBox(props: ConfirmBoxProps) {
  const id = useId();
  return (
    <div
      className={props.danger ? "confirm confirm--danger" : "confirm"}
      role="alertdialog"
      aria-labelledby={`${id}-question`}
      aria-describedby={`${id}-consequence`}
      onKeyDown={(event) => {
        if (event.key === "Escape" && !props.busy) {
          props.onCancel();
        }
      }}
    >
      <p className="confirm__question" id={`${id}-question`}>
        {props.question}
      </p>
      <p className="confirm__consequence" id={`${id}-consequence`}>
        {props.consequence}
      </p>
      {props.refusal !== null && (
        <p className="form-error" role="alert">
          {props.refusal}
        </p>
      )}
      <div className="inline-form">
        {props.refusal === null && (
          <button
            type="button"
            className={props.danger ? "button button--danger" : "button button--primary"}
            disabled={props.busy}
            onClick={props.onConfirm}
          >
            {props.confirm}
          </button>
        )}
        <button
          type="button"
          className="button"
          autoFocus
          disabled={props.busy}
          onClick={props.onCancel}
        >
          {props.refusal === null ? "Cancel" : "Close"}
        </button>
      </div>
    </div>
  );
}
