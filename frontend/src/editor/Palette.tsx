import { useReactFlow } from "@xyflow/react";
import { useState } from "react";

import type { OperatorCategory, OperatorSpec } from "../api/resources";
import { newOperator } from "./commands";
import { useEditor } from "./context";

export const PALETTE_MIME = "application/x-streamgraph-operator";

const CATEGORY_TITLES: Record<OperatorCategory, string> = {
  source: "Sources",
  transform: "Transformations",
  keyed: "Keyed (after keyBy)",
  window: "Windows",
  "multi-input": "Connect (two inputs)",
  sink: "Sinks",
};

/** The operator catalog: drag an operator onto the canvas, or click to add it in view. */
export function Palette({ onNotice }: { readonly onNotice: (message: string) => void }) {
  const { session, selection, catalog, canEdit } = useEditor();
  const flow = useReactFlow();
  const [filter, setFilter] = useState("");
  const needle = filter.trim().toLowerCase();
  const shown = catalog.operators.filter(
    (spec) =>
      spec.palette &&
      (needle === "" ||
        spec.label.toLowerCase().includes(needle) ||
        spec.kind.includes(needle) ||
        spec.description.toLowerCase().includes(needle)),
  );

  const add = (spec: OperatorSpec): void => {
    const document = session.document.getState().document;
    if (document === null) {
      return;
    }
    const box = window.document.querySelector(".canvas")?.getBoundingClientRect();
    const centre = flow.screenToFlowPosition({
      x: (box?.left ?? 0) + (box?.width ?? 800) / 2,
      y: (box?.top ?? 0) + (box?.height ?? 600) / 2,
    });
    // Nudge each new operator so clicks in a row do not stack them exactly.
    const offset = (document.nodes.length % 5) * 24;
    const node = newOperator(document, spec, {
      x: centre.x - 86 + offset,
      y: centre.y - 31 + offset,
    });
    const result = session.document.getState().addOperator(node);
    if (!result.ok) {
      onNotice(`Cannot add ${spec.label}: ${result.error.message}`);
      return;
    }
    const added = result.applied[0];
    if (added?.kind === "add_node") {
      selection.getState().select([added.node.id]);
    }
  };

  const categories = [...new Set(shown.map((spec) => spec.category))];
  return (
    <aside className="palette" aria-label="Operator palette">
      <input
        className="palette__filter"
        placeholder="Find an operator"
        value={filter}
        onChange={(event) => {
          setFilter(event.target.value);
        }}
      />
      {!canEdit && <p className="muted palette__note">Read-only: you cannot add operators.</p>}
      {categories.map((category) => (
        <section key={category} className="palette__group">
          <h3>{CATEGORY_TITLES[category]}</h3>
          {shown
            .filter((spec) => spec.category === category)
            .map((spec) => (
              <button
                key={spec.kind}
                type="button"
                className={`palette__item palette__item--${spec.category}`}
                draggable={canEdit}
                disabled={!canEdit}
                data-testid={`palette-${spec.kind}`}
                title={spec.description}
                onDragStart={(event) => {
                  event.dataTransfer.setData(PALETTE_MIME, spec.kind);
                  event.dataTransfer.effectAllowed = "copy";
                }}
                onClick={() => {
                  add(spec);
                }}
              >
                {spec.label}
              </button>
            ))}
        </section>
      ))}
      <p className="muted palette__note">
        Union: connect several streams into the same input. keyBy: set an edge&apos;s partitioner to
        HASH and give it a key.
      </p>
    </aside>
  );
}
