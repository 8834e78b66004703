import type { StateVerdict } from "../api/resources";
import { CopyId } from "../ui/CopyId";

const VERDICTS = { kept: "kept", lost: "lost", refused: "refused", new: "new" } as const;

/**
 * Per stateful operator: does its state come back from the savepoint, under which ids, and
 * why (refused: Flink will not start with it).
 */
export function SavepointTable(props: {
  readonly savepoint: StateVerdict;
  readonly onReveal: (node: number) => void;
}) {
  const { savepoint, onReveal } = props;
  if (savepoint.operators.length === 0) {
    return <p className="muted">No stateful operators in either version.</p>;
  }
  return (
    <table className="table savepoint-table" data-testid="savepoint-table">
      <thead>
        <tr>
          <th>Operator</th>
          <th>State</th>
          <th>OperatorID</th>
        </tr>
      </thead>
      <tbody>
        {savepoint.operators.map((op) => (
          <tr
            key={op.oldOperatorId ?? op.newOperatorId ?? op.name}
            className={`savepoint-row savepoint-row--${op.verdict}`}
            data-testid={`savepoint-row-${op.node ?? "none"}`}
            data-verdict={op.verdict}
          >
            <td>
              {op.node === null ? (
                <span>{op.name}</span>
              ) : (
                <button
                  type="button"
                  className="link-button"
                  onClick={() => {
                    if (op.node !== null) {
                      onReveal(op.node);
                    }
                  }}
                  title="Show it on the canvas"
                >
                  {op.name}
                </button>
              )}
              <div className="muted">{op.operator}</div>
              <ul className="savepoint-row__causes">
                {op.causes.map((cause) => (
                  <li key={cause}>{cause}</li>
                ))}
              </ul>
            </td>
            <td>
              <span className={`state-pill state-pill--${op.verdict}`}>{VERDICTS[op.verdict]}</span>
            </td>
            <td className="savepoint-row__ids">
              <div>
                <span className="muted">old </span>
                {op.oldOperatorId === null ? (
                  <span className="muted">none</span>
                ) : (
                  <CopyId id={op.oldOperatorId} label="OperatorID in the savepoint" />
                )}
              </div>
              <div>
                <span className="muted">new </span>
                {op.newOperatorId === null ? (
                  <span className="muted">none</span>
                ) : (
                  <CopyId id={op.newOperatorId} label="OperatorID in the new version" />
                )}
              </div>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
