import type { StateCheck } from "../api/reviews";
import { stateBasisWords } from "./states";

/**
 * The state this version would not restore: of the pipeline's current savepoint when it
 * has one, else of the stateful operators of the reference (the last approved version
 * before this one). Name, node, the OperatorID the state is saved under, and why. A
 * reviewer who answers ticks each one to acknowledge it.
 */
export function StateLossList(props: {
  readonly check: StateCheck;
  /** Set while the viewer may approve: the ids ticked, and how to tick one. */
  readonly acknowledging?: {
    readonly checked: ReadonlySet<string>;
    readonly onToggle: (operatorId: string, checked: boolean) => void;
  } | null;
}) {
  const { check } = props;
  const basis = stateBasisWords(check);
  if (basis === null) {
    return (
      <section className="state-loss" data-testid="state-loss">
        <h3>State at risk</h3>
        <p className="muted">
          No version before this one is approved: there is no saved state to compare with, so an
          approval acknowledges nothing.
        </p>
      </section>
    );
  }
  if (check.operators.length === 0) {
    return (
      <section className="state-loss" data-testid="state-loss">
        <h3>State at risk</h3>
        <p className="muted">{basis.restoresAll}</p>
      </section>
    );
  }
  const count = check.operators.length;
  return (
    <section className="state-loss state-loss--at-risk" data-testid="state-loss">
      <h3>State at risk</h3>
      <p>
        {basis.comparedWith}, {count} stateful operator{count === 1 ? "" : "s"} would lose{" "}
        {count === 1 ? "its" : "their"} state.
        {props.acknowledging != null && " An approval must acknowledge each of them."}
      </p>
      <ul className="state-loss__list">
        {check.operators.map((risk) => (
          <li
            key={risk.operatorId}
            className="state-loss__item"
            data-testid={`state-risk-${risk.operatorId}`}
          >
            <div className="state-loss__head">
              {props.acknowledging != null && (
                <input
                  type="checkbox"
                  id={`ack-${risk.operatorId}`}
                  checked={props.acknowledging.checked.has(risk.operatorId)}
                  onChange={(event) => {
                    props.acknowledging?.onToggle(risk.operatorId, event.target.checked);
                  }}
                  data-testid={`ack-${risk.operatorId}`}
                />
              )}
              <label htmlFor={`ack-${risk.operatorId}`} className="state-loss__name">
                {risk.name}{" "}
                {risk.node !== null && <span className="muted">(node {risk.node})</span>}
              </label>
              <code className="state-loss__id" title="OperatorID: what its state is saved under">
                {risk.operatorId}
              </code>
            </div>
            <ul className="state-loss__reasons">
              {risk.reasons.map((reason) => (
                <li key={reason.code + reason.message}>{reason.message}</li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </section>
  );
}
