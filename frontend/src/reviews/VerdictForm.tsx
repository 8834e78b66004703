import { useId, useState } from "react";

import * as reviews from "../api/reviews";
import { errorLines } from "./errors";
import { verdictLabel } from "./states";

/** Names in a sentence: "Sum", "Sum and Count", "Sum, Count and Window". */
function listed(names: readonly string[]): string {
  if (names.length <= 1) {
    return names.join("");
  }
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1] ?? ""}`;
}

/**
 * A reviewer's answer to a request: approve, request changes or comment, with a summary.
 * An approval sends the operators ticked in the state-loss list above it as acknowledged,
 * and waits until every one is ticked; the server refuses one that does not name exactly
 * those, and the refusal is shown. Which verdicts may be given and which will count is the
 * server's answer (`options`), said before sending.
 */
export function VerdictForm(props: {
  readonly pipelineId: number;
  readonly version: number;
  readonly request: reviews.ReviewRequest;
  readonly acknowledged: ReadonlySet<string>;
  /** The operators of the state-loss list not ticked yet, by name. */
  readonly unacknowledged: readonly string[];
  /** Each verdict as it would weigh if given now, as the server weighs it. */
  readonly options: readonly reviews.VerdictOption[];
  readonly onAnswered: (review: reviews.VersionReview) => void;
}) {
  const [verdict, setVerdict] = useState<reviews.VerdictKind>(
    () => props.options.find((option) => option.allowed)?.verdict ?? "comment",
  );
  const [summary, setSummary] = useState("");
  const [errors, setErrors] = useState<readonly string[]>([]);
  const [sending, setSending] = useState(false);
  const summaryId = useId();
  const name = useId();
  const submit = async (): Promise<void> => {
    setSending(true);
    try {
      const review = await reviews.giveVerdict(props.pipelineId, props.version, props.request.id, {
        verdict,
        summary: summary.trim(),
        acknowledged: verdict === "approve" ? [...props.acknowledged] : [],
      });
      setErrors([]);
      setSummary("");
      props.onAnswered(review);
    } catch (caught) {
      setErrors(errorLines(caught));
    } finally {
      setSending(false);
    }
  };
  const waiting = verdict === "approve" ? props.unacknowledged : [];
  const chosen = props.options.find((option) => option.verdict === verdict);
  return (
    <form
      className="verdict-form"
      data-testid="verdict-form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <fieldset className="verdict-form__kinds">
        <legend>Your review</legend>
        {props.options.map((option) => (
          <label key={option.verdict} className="verdict-form__kind">
            <input
              type="radio"
              name={name}
              value={option.verdict}
              checked={verdict === option.verdict}
              disabled={!option.allowed}
              onChange={() => {
                setVerdict(option.verdict);
              }}
              data-testid={`verdict-${option.verdict}`}
            />
            {verdictLabel(option.verdict)}
          </label>
        ))}
      </fieldset>
      {props.options
        .filter((option) => !option.allowed && option.note !== null)
        .map((option) => (
          <p key={option.verdict} className="verdict-form__hint" data-testid="verdict-refused">
            {option.note}
          </p>
        ))}
      <label htmlFor={summaryId} className="verdict-form__label">
        Summary (optional)
      </label>
      <textarea
        id={summaryId}
        rows={3}
        value={summary}
        maxLength={2000}
        onChange={(event) => {
          setSummary(event.target.value);
        }}
        data-testid="verdict-summary"
      />
      {chosen !== undefined && chosen.allowed && chosen.note !== null && (
        <p className="verdict-form__hint" data-testid="verdict-will-not-count">
          {chosen.note}
        </p>
      )}
      {waiting.length > 0 && (
        <p className="verdict-form__hint" data-testid="verdict-hint">
          Tick {listed(waiting)} above to acknowledge that {waiting.length === 1 ? "its" : "their"}{" "}
          state will not be restored: an approval answers for every state this version loses.
        </p>
      )}
      <button
        type="submit"
        className="button button--primary"
        disabled={sending || waiting.length > 0}
        data-testid="verdict-submit"
      >
        {verdict === "approve" ? "Approve version" : verdictLabel(verdict)} {props.version}
      </button>
      {errors.length > 0 && (
        <div className="form-error" role="alert" data-testid="verdict-error">
          {errors.map((line) => (
            <p key={line}>{line}</p>
          ))}
        </div>
      )}
    </form>
  );
}
