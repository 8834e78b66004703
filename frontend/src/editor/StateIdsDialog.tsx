import { useEffect, useState } from "react";

import { listVersions } from "../api/resources";
import { selectPlanIsCurrent } from "../store/document";
import { errorText } from "../ui/useResource";
import { useDocumentStore, useEditor } from "./context";
import type { Notify } from "./notices";
import { pinEdits, pinProposal, pinText, uidEdits, uidProposal, uidText } from "./pinning";

/** Pin the current IDs of the stateful operators (or only `nodes`), or give them uids. */
export type StateIdsAction =
  { readonly kind: "pin"; readonly nodes?: readonly number[] } | { readonly kind: "uids" };

interface Row {
  readonly node: number;
  readonly name: string;
  /** The OperatorID to pin, or the uid to set. */
  readonly value: string;
}

/**
 * The confirmation before pinning IDs or setting uids: what it does, each operator with
 * the ID or uid it gets (each can be left out), and one button that applies them all as
 * one undoable step. It follows the live plan, so what it lists is what is applied.
 */
export function StateIdsDialog(props: {
  readonly action: StateIdsAction;
  readonly onClose: () => void;
  readonly notify: Notify;
}) {
  const { action, onClose, notify } = props;
  const { session, canEdit } = useEditor();
  const document = useDocumentStore((state) => state.document);
  const plan = useDocumentStore((state) => state.plan);
  const planIsCurrent = useDocumentStore(selectPlanIsCurrent);
  const [left, setLeft] = useState<ReadonlySet<number>>(new Set());
  const [savedVersions, setSavedVersions] = useState<number | null>(null);

  useEffect(() => {
    if (action.kind !== "uids") {
      return;
    }
    const controller = new AbortController();
    listVersions(session.pipelineId, controller.signal).then(
      (versions) => {
        setSavedVersions(versions.length);
      },
      (error: unknown) => {
        if (!controller.signal.aborted) {
          notify(`Cannot tell whether versions were saved: ${errorText(error)}`);
        }
      },
    );
    return () => {
      controller.abort();
    };
  }, [action.kind, session.pipelineId, notify]);

  if (document === null || plan === null) {
    return null;
  }
  const pin = action.kind === "pin" ? pinProposal(document, plan, action.nodes) : null;
  const uids = action.kind === "uids" ? uidProposal(document, plan) : [];
  const rows: readonly Row[] =
    pin !== null
      ? pin.items.map((item) => ({ node: item.node, name: item.name, value: item.operatorId }))
      : uids.map((item) => ({ node: item.node, name: item.name, value: item.uid }));
  const chosen = rows.filter((row) => !left.has(row.node));
  const title = pin !== null ? "Pin current IDs" : "Give stateful operators readable uids";
  const text = pin !== null ? pinText(pin) : uidText(uids, savedVersions);
  const waiting = !planIsCurrent || (pin === null && savedVersions === null);

  const apply = (): void => {
    const nodes = new Set(chosen.map((row) => row.node));
    const edits =
      pin !== null
        ? pinEdits(pin.items.filter((item) => nodes.has(item.node)))
        : uidEdits(uids.filter((item) => nodes.has(item.node)));
    const result = session.document.getState().applyEdits(edits);
    if (!result.ok) {
      notify(result.error.message);
      return;
    }
    const count = chosen.length === 1 ? "1 operator" : `${chosen.length} operators`;
    notify(
      pin !== null
        ? `Pinned the current IDs of ${count}; Undo takes it back.`
        : `Gave ${count} a uid; Undo takes it back.`,
      "info",
    );
    onClose();
  };

  return (
    <div
      className="help-overlay"
      role="presentation"
      onClick={onClose}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          onClose();
        }
      }}
    >
      <div
        className="help-overlay__card state-ids"
        role="dialog"
        aria-modal="true"
        aria-label={title}
        data-testid="state-ids-dialog"
        onClick={(event) => {
          event.stopPropagation();
        }}
      >
        <h2>{title}</h2>
        <p>{text}</p>
        {rows.length > 0 && (
          <table className="table state-ids__table">
            <thead>
              <tr>
                <th scope="col">Operator</th>
                <th scope="col">{pin !== null ? "uidHash (its OperatorID now)" : "uid"}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.node} data-testid={`state-ids-row-${row.node}`}>
                  <td>
                    <label>
                      <input
                        type="checkbox"
                        checked={!left.has(row.node)}
                        onChange={(event) => {
                          const next = new Set(left);
                          if (event.target.checked) {
                            next.delete(row.node);
                          } else {
                            next.add(row.node);
                          }
                          setLeft(next);
                        }}
                      />{" "}
                      {row.name}
                    </label>
                  </td>
                  <td>
                    <code data-testid={`state-ids-value-${row.node}`}>{row.value}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {!planIsCurrent && <p className="muted">Waiting for the plan of your last edit…</p>}
        <div className="state-ids__actions">
          <button type="button" className="button" data-testid="state-ids-cancel" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            className="button button--primary"
            data-testid="state-ids-apply"
            disabled={!canEdit || waiting || chosen.length === 0}
            onClick={apply}
          >
            {pin !== null ? "Pin" : "Set uids"}
            {chosen.length > 0 && ` (${chosen.length})`}
          </button>
        </div>
      </div>
    </div>
  );
}
