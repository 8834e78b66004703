import { useState } from "react";

import { diagnosticElements } from "../graph/canvas";
import { edgeKeys } from "../graph/edits";
import type { Diagnostic } from "../graph/streamgraph";
import { useDocumentStore, useEditor } from "./context";
import { ImportChecklistPanel } from "./ImportChecklistPanel";
import type { Notify } from "./notices";
import { isStateWarning } from "./pinning";
import { noProblemsText } from "./problems";
import { StateIdsDialog } from "./StateIdsDialog";

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/**
 * Every diagnostic of the current plan; a click selects and shows its element. A warning
 * about an operator's unpinned state offers to pin its current ID.
 */
export function ProblemsPanel({ notify }: { readonly notify: Notify }) {
  const { selection, canEdit } = useEditor();
  const [pinning, setPinning] = useState<number | null>(null);
  const plan = useDocumentStore((state) => state.plan);
  // Names are looked up only for problems to list: without any, edits do not render this.
  const document = useDocumentStore((state) =>
    (state.plan?.diagnostics.length ?? 0) > 0 ? state.document : null,
  );
  const operatorCount = useDocumentStore((state) => state.document?.nodes.length ?? 0);
  const diagnostics = plan?.diagnostics ?? [];
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const keys = document === null ? [] : edgeKeys(document);
  const nodeName = (id: number): string =>
    document?.nodes.find((node) => node.id === id)?.name ?? `node ${id}`;

  const where = (d: Diagnostic): string => {
    if (d.edge !== null) {
      const key = keys[d.edge];
      return key === undefined ? `edge ${d.edge}` : `${nodeName(key[0])} → ${nodeName(key[1])}`;
    }
    if (d.node !== null) {
      return nodeName(d.node);
    }
    return "pipeline";
  };

  // Every element the problem is about: all of a cycle's nodes and edges, else its one.
  const reveal = (d: Diagnostic): void => {
    if (document === null) {
      return;
    }
    const { nodes, edges } = diagnosticElements(document, d);
    if (nodes.length > 0 || edges.length > 0) {
      selection.getState().reveal(nodes, edges);
    }
  };

  return (
    <section className="problems" aria-label="Problems" data-testid="problems">
      <header className="problems__header">
        <strong>Problems</strong>
        <span className={errors > 0 ? "count count--error" : "count"}>
          {plural(errors, "error")}, {plural(diagnostics.length - errors, "warning")}
        </span>
        {plan !== null && !plan.ok && (
          <span className="muted">The plan is built again as soon as the errors are fixed.</span>
        )}
      </header>
      <ImportChecklistPanel />
      {diagnostics.length === 0 ? (
        <p className="muted problems__empty">{noProblemsText(operatorCount)}</p>
      ) : (
        <ul className="problems__list">
          {diagnostics.map((d, i) => (
            <li key={i}>
              <button
                type="button"
                className={`problem problem--${d.severity}`}
                onClick={() => {
                  reveal(d);
                }}
              >
                <span className="problem__severity">{d.severity}</span>
                <span className="problem__where">{where(d)}</span>
                <span className="problem__message">{d.message}</span>
                {d.field !== null && <code className="problem__field">{d.field}</code>}
              </button>
              {isStateWarning(d) && d.node !== null && (
                <button
                  type="button"
                  className="button button--small problem__fix"
                  data-testid={`pin-node-${d.node}`}
                  disabled={!canEdit}
                  title="Set its uidHash to the OperatorID it has now"
                  onClick={() => {
                    setPinning(d.node);
                  }}
                >
                  Pin its ID
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {pinning !== null && (
        <StateIdsDialog
          action={{ kind: "pin", nodes: [pinning] }}
          notify={notify}
          onClose={() => {
            setPinning(null);
          }}
        />
      )}
    </section>
  );
}
