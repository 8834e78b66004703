import { useMemo, useState } from "react";

import type { RestoreCheck } from "../api/savepoints";
import type { Edit } from "../graph/edits";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { CopyId } from "../ui/CopyId";
import { lostStates, mappingPlan, nodeOptions, type Choices } from "./mapping";

/**
 * "Map lost state": for each state that no operator of the working copy takes, the operator
 * that should take it over (the suggestion first), and one edit that gives each its uidHash.
 */
export function MapLostState(props: {
  readonly check: RestoreCheck;
  readonly document: StreamGraphDocument;
  readonly choices: Choices;
  readonly onChoose: (operatorId: string, node: number | null) => void;
  /** Applies the edits as one undoable step; the refusal in words, or null. */
  readonly onApply: ((edits: readonly Edit[]) => string | null) | null;
}) {
  const { check, document, choices } = props;
  const lost = useMemo(() => lostStates(check), [check]);
  const options = useMemo(() => nodeOptions(document), [document]);
  const plan = useMemo(() => mappingPlan(check, document, choices), [check, document, choices]);
  const [refusal, setRefusal] = useState<string | null>(null);
  if (lost.length === 0) {
    return null;
  }
  const apply = props.onApply;
  return (
    <section className="map-lost" data-testid="map-lost">
      <h3>Map lost state</h3>
      <p className="muted">
        Pick the operator that should take over each state nothing takes now. Its uidHash is set to
        the savepoint&apos;s OperatorID, so Flink finds the state under it.
      </p>
      <ul className="map-lost__list">
        {lost.map((state) => (
          <li key={state.operatorId} data-testid={`map-lost-${state.operatorId}`}>
            <div>
              <strong>{state.owner}</strong> <span className="muted">{state.state}</span>{" "}
              <CopyId id={state.operatorId} label="OperatorID in the savepoint" />
            </div>
            <select
              aria-label={`Operator to take over ${state.owner}`}
              value={String(choices.get(state.operatorId) ?? "")}
              disabled={apply === null}
              onChange={(event) => {
                setRefusal(null);
                props.onChoose(
                  state.operatorId,
                  event.target.value === "" ? null : Number(event.target.value),
                );
              }}
              data-testid={`map-lost-select-${state.operatorId}`}
            >
              <option value="">leave it lost</option>
              {options.map((option) => (
                <option key={option.node} value={option.node}>
                  {option.label}
                  {option.node === state.suggested ? " (suggested)" : ""}
                </option>
              ))}
            </select>
          </li>
        ))}
      </ul>
      {plan.lines.length > 0 && (
        <ul className="map-lost__lines" data-testid="map-lost-lines">
          {plan.lines.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      {plan.problems.length > 0 && (
        <ul className="diagnostic-list" data-testid="map-lost-problems">
          {plan.problems.map((problem) => (
            <li key={problem} className="diagnostic diagnostic--error">
              {problem}
            </li>
          ))}
        </ul>
      )}
      {refusal !== null && (
        <p className="form-error" role="alert">
          {refusal}
        </p>
      )}
      {apply === null ? (
        <p className="muted">Editors map lost state; you can read what it would do.</p>
      ) : (
        <button
          type="button"
          className="button button--primary"
          disabled={plan.edits.length === 0 || plan.problems.length > 0}
          onClick={() => {
            setRefusal(apply(plan.edits));
          }}
          data-testid="map-lost-apply"
        >
          Map {plan.edits.length === 1 ? "1 state" : `${plan.edits.length} states`} (one undoable
          edit)
        </button>
      )}
    </section>
  );
}
