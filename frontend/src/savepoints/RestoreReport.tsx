import { useMemo } from "react";

import type { RestoreCheck } from "../api/savepoints";
import { CopyId } from "../ui/CopyId";
import { newOperatorRows, restoreRows, rowCounts, type RestoreRow } from "./restoreTable";
import type { RestoreVerdict } from "./verdict";

const ICONS = { restores: "✓", dropping: "!", fails: "✕", "not-compiled": "?" } as const;

/** The answer in one sentence, first and large: green when it restores, red when not. */
export function RestoreVerdictBanner({ verdict }: { readonly verdict: RestoreVerdict }) {
  return (
    <div
      className={`restore-verdict restore-verdict--${verdict.tone}`}
      role="status"
      data-testid="restore-verdict"
      data-tone={verdict.tone}
    >
      <span className="restore-verdict__icon" aria-hidden="true">
        {ICONS[verdict.tone]}
      </span>
      <div>
        <strong className="restore-verdict__title" data-testid="restore-verdict-title">
          {verdict.title}
        </strong>
        {verdict.details.map((detail) => (
          <p key={detail} className="restore-verdict__detail">
            {detail}
          </p>
        ))}
      </div>
    </div>
  );
}

/**
 * Per operator state of the savepoint what becomes of it, the operators that start empty,
 * and the warnings Flink never gives.
 */
export function RestoreReport(props: {
  readonly check: RestoreCheck;
  readonly onReveal: ((node: number) => void) | null;
}) {
  const { check, onReveal } = props;
  const rows = useMemo(() => restoreRows(check), [check]);
  const fresh = useMemo(() => newOperatorRows(check.newOperators), [check]);
  return (
    <>
      <h3>Operator state</h3>
      <p className="muted">{rowCounts(rows)}</p>
      <table className="table restore-table" data-testid="restore-table">
        <thead>
          <tr>
            <th>In the savepoint</th>
            <th>Becomes</th>
          </tr>
        </thead>
        {rows.map((row) => (
          <RestoreRowView key={row.operatorId} row={row} onReveal={onReveal} />
        ))}
      </table>
      {fresh.length > 0 && (
        <>
          <h3>Start empty</h3>
          <ul className="restore-new" data-testid="restore-new">
            {fresh.map((op) => (
              <li key={op.node} data-testid={`restore-new-${op.node}`}>
                <NodeLink node={op.node} text={op.text} onReveal={onReveal} />{" "}
                <span className="muted">{op.operator}</span>{" "}
                <CopyId id={op.operatorId} label="OperatorID" />
                {op.stateful && <span className="restore-new__stateful"> keeps state</span>}
              </li>
            ))}
          </ul>
        </>
      )}
      {check.warnings.length > 0 && (
        <>
          <h3>Warnings</h3>
          <ul className="diagnostic-list" data-testid="restore-warnings">
            {check.warnings.map((warning) => (
              <li
                key={`${warning.code}:${warning.operatorId ?? ""}`}
                className="diagnostic diagnostic--warning"
              >
                {warning.message}
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

function NodeLink(props: {
  readonly node: number;
  readonly text: string;
  readonly onReveal: ((node: number) => void) | null;
}) {
  const { onReveal, node } = props;
  if (onReveal === null) {
    return <span>{props.text}</span>;
  }
  return (
    <button
      type="button"
      className="link-button"
      title="Show it on the canvas"
      onClick={() => {
        onReveal(node);
      }}
    >
      {props.text}
    </button>
  );
}

function RestoreRowView(props: {
  readonly row: RestoreRow;
  readonly onReveal: ((node: number) => void) | null;
}) {
  const { row } = props;
  return (
    <tbody
      className={`restore-row restore-row--${row.tone}`}
      data-testid={`restore-row-${row.operatorId}`}
      data-outcome={row.outcome}
    >
      <tr>
        <td>
          <div className="restore-row__name">{row.name}</div>
          <CopyId id={row.operatorId} label="OperatorID in the savepoint" />
          <div className="muted">
            p{row.parallelism}, max {row.maxParallelism}
            {row.uid !== null && ` · uid ${row.uid}`}
          </div>
          <div>{row.state}</div>
        </td>
        <td>
          <span className={`restore-pill restore-pill--${row.tone}`}>{row.outcomeLabel}</span>
          {row.target !== null && (
            <div className="restore-row__target">
              → <NodeLink node={row.target.node} text={row.target.text} onReveal={props.onReveal} />
              <div className="muted">by its {row.target.matchedBy}</div>
              <div className="muted">
                in {row.target.vertexName} ({row.target.subtasks}){" "}
                <CopyId id={row.target.vertexId} label="JobVertexID" />
              </div>
            </div>
          )}
        </td>
      </tr>
      {row.reasons.length > 0 && (
        <tr className="restore-row__reasons">
          <td colSpan={2}>
            <ul>
              {row.reasons.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
          </td>
        </tr>
      )}
    </tbody>
  );
}
