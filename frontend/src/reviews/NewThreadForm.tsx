import { useId, useState } from "react";

import * as reviews from "../api/reviews";
import type { StoreApi } from "../store/hooks";
import type { ReviewStore } from "../store/reviews";
import { CommentForm } from "./CommentForm";
import type { TargetChoice } from "./targets";

/**
 * Opens a thread on `version` (null: the working copy) about one of `choices`: what is
 * selected on the canvas, or the whole pipeline.
 */
export function NewThreadForm(props: {
  readonly pipelineId: number;
  readonly version: number | null;
  readonly choices: readonly TargetChoice[];
  readonly store: StoreApi<ReviewStore>;
}) {
  const { choices } = props;
  const [picked, setPicked] = useState<string | null>(null);
  const chosen = choices.find((choice) => choice.key === picked) ?? choices[0];
  const id = useId();
  if (chosen === undefined) {
    return null;
  }
  return (
    <section className="new-thread" data-testid="new-thread">
      <div className="new-thread__target">
        <label htmlFor={id}>New thread on</label>
        <select
          id={id}
          value={chosen.key}
          onChange={(event) => {
            setPicked(event.target.value);
          }}
          data-testid="new-thread-target"
        >
          {choices.map((choice) => (
            <option key={choice.key} value={choice.key}>
              {choice.label}
            </option>
          ))}
        </select>
      </div>
      {choices.length === 1 && (
        <p className="muted new-thread__hint">
          Select an operator or an edge on the canvas to comment on it.
        </p>
      )}
      <CommentForm
        label={`Comment on ${chosen.label}`}
        submitLabel="Comment"
        onSubmit={async (body) => {
          const thread = await reviews.createThread(
            props.pipelineId,
            props.version,
            chosen.target,
            body,
          );
          props.store.getState().put(thread);
        }}
        testId="new-thread"
      />
    </section>
  );
}
