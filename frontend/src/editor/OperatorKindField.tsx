import { useId } from "react";

import type { StreamNode } from "../graph/streamgraph";
import { useEditor } from "./context";
import { importTodo, kindOptions, operatorChange } from "./operatorKind";
import { useImportChecklist } from "./useImportChecklist";

/**
 * The operator's kind, to change it (keeping id, name, uids, parallelism and edges,
 * starting from the new kind's default parameters); for a node of an imported pipeline,
 * the kind its checklist suggests, with Apply, and what is left to do.
 */
export function OperatorKindField(props: {
  readonly node: StreamNode;
  readonly onNotice: (message: string) => void;
}) {
  const { node, onNotice } = props;
  const { session, catalog, canEdit } = useEditor();
  const checklist = useImportChecklist();
  const id = useId();
  const current = node.operator ?? "";
  const todo = importTodo(checklist, node.id, current);
  const labelOf = (kind: string): string =>
    catalog.operators.find((spec) => spec.kind === kind)?.label ?? kind;

  const change = (kind: string): void => {
    const next = operatorChange(catalog, kind);
    if (next === null || kind === current) {
      return;
    }
    const result = session.document.getState().setOperator(node.id, next.operator, next.params);
    if (!result.ok) {
      onNotice(result.error.message);
    }
  };

  return (
    <>
      <div className="field">
        <label htmlFor={id}>Kind</label>
        <select
          id={id}
          value={current}
          disabled={!canEdit}
          data-testid="prop-operator"
          onChange={(event) => {
            change(event.target.value);
          }}
        >
          {kindOptions(catalog, current).map((option) => (
            <option key={option.kind} value={option.kind}>
              {option.label}
            </option>
          ))}
        </select>
        <span className="field__help">
          Changing the kind keeps the id, name, uids, parallelism and edges; the parameters start
          from the new kind&apos;s defaults.
        </span>
      </div>
      {todo !== null && (
        <div className="import-todo" data-testid="import-todo">
          <strong>Imported</strong>
          {todo.suggested !== null && (
            <p>
              Suggested kind: <code>{labelOf(todo.suggested)}</code>{" "}
              {canEdit && (
                <button
                  type="button"
                  className="button"
                  data-testid="import-apply"
                  onClick={() => {
                    if (todo.suggested !== null) {
                      change(todo.suggested);
                    }
                  }}
                >
                  Apply
                </button>
              )}
            </p>
          )}
          {todo.left.length > 0 && (
            <ul className="import-todo__left" data-testid="import-left">
              {todo.left.map((item) => (
                <li key={item}>{item}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </>
  );
}
