import { useReactFlow } from "@xyflow/react";
import { useMemo, useState } from "react";

import type { OperatorCategory, OperatorSpec } from "../api/resources";
import { NODE_HEIGHT, NODE_WIDTH } from "../canvas/geometry";
import { newOperator } from "./commands";
import { useEditor } from "./context";
import { placeFromPalette, showsWhole } from "./placement";

export const PALETTE_MIME = "application/x-streamgraph-operator";

const CATEGORY_TITLES: Record<OperatorCategory, string> = {
  source: "Sources",
  transform: "Transformations",
  keyed: "Keyed (after keyBy)",
  window: "Windows",
  "multi-input": "Connect (two inputs)",
  sink: "Sinks",
};

/**
 * The operator catalog: drag an operator onto the canvas, or click to add it after the
 * selected operator (connected when it can be) or in the middle of the view.
 */
export function Palette({ onNotice }: { readonly onNotice: (message: string) => void }) {
  const { session, selection, catalog, canEdit } = useEditor();
  const flow = useReactFlow();
  const specs = useMemo(
    () => new Map(catalog.operators.map((spec) => [spec.kind, spec])),
    [catalog],
  );
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
    const left = box?.left ?? 0;
    const top = box?.top ?? 0;
    const corner = flow.screenToFlowPosition({ x: left, y: top });
    const far = flow.screenToFlowPosition({
      x: left + (box?.width ?? 800),
      y: top + (box?.height ?? 600),
    });
    const view = { x: corner.x, y: corner.y, width: far.x - corner.x, height: far.y - corner.y };
    const viewCentre = { x: view.x + view.width / 2, y: view.y + view.height / 2 };
    const { position, inbound } = placeFromPalette(document, spec, {
      selected: selection.getState().nodes,
      specs,
      viewCentre,
    });
    const node = newOperator(document, spec, position);
    // The node and its edge are one edit: one revision, one undo step.
    const result = session.document.getState().addOperator(node, inbound ?? undefined);
    if (!result.ok) {
      onNotice(`Cannot add ${spec.label}: ${result.error.message}`);
      return;
    }
    const added = result.applied[0];
    if (added?.kind === "add_node") {
      selection.getState().select([added.node.id]);
    }
    if (!showsWhole(view, position)) {
      // Beside an operator at the edge of the view: follow it there, at the same zoom.
      void flow.setCenter(position.x + NODE_WIDTH / 2, position.y + NODE_HEIGHT / 2, {
        zoom: flow.getZoom(),
        duration: 200,
      });
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
