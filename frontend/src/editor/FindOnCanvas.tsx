import { useMemo, useState } from "react";

import { shortId } from "../ui/CopyId";
import { useDocumentStore, useEditor } from "./context";
import { findNodes, type Found } from "./findNodes";

/** How a match says what it was found by, when that is not its name. */
function foundBy(found: Found): string | null {
  switch (found.by) {
    case "id":
    case "name":
    case "kind":
      return null;
    case "uid":
      return `uid ${found.text}`;
    case "operatorId":
      return `OperatorID ${shortId(found.text)}`;
    case "vertex":
      return `JobVertexID ${shortId(found.text)}`;
    case "uidHash":
      return `uid hash ${shortId(found.text)}`;
  }
}

/**
 * A search box over the canvas: the nodes its text finds, best first (`findNodes`).
 * Enter picks the highlighted one (the first, until the arrows move), a click any one;
 * Escape, or leaving the box, closes it.
 */
export function FindOnCanvas({
  onPick,
  onClose,
}: {
  readonly onPick: (nodeId: number) => void;
  readonly onClose: () => void;
}) {
  const { catalog } = useEditor();
  const document = useDocumentStore((state) => state.document);
  const plan = useDocumentStore((state) => state.plan);
  const specs = useMemo(
    () => new Map(catalog.operators.map((spec) => [spec.kind, spec])),
    [catalog],
  );
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const found = useMemo(
    () => (document === null ? [] : findNodes(document, plan, specs, query)),
    [document, plan, specs, query],
  );
  const highlighted = Math.min(active, found.length - 1);

  const pick = (item: Found | undefined): void => {
    if (item !== undefined) {
      onPick(item.nodeId);
      onClose();
    }
  };

  return (
    <div
      className="find-box"
      role="search"
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget)) {
          onClose();
        }
      }}
    >
      <input
        className="find-box__input"
        aria-label="Find a node on the canvas"
        placeholder="Find a node: name, kind, id, uid or hash"
        data-testid="find-node"
        autoFocus
        value={query}
        role="combobox"
        aria-expanded={found.length > 0}
        aria-controls="find-box-matches"
        aria-activedescendant={highlighted >= 0 ? `find-box-match-${highlighted}` : undefined}
        onChange={(event) => {
          setQuery(event.target.value);
          setActive(0);
        }}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown" || event.key === "ArrowUp") {
            event.preventDefault();
            const step = event.key === "ArrowDown" ? 1 : -1;
            setActive(Math.min(Math.max(highlighted + step, 0), found.length - 1));
          } else if (event.key === "Enter") {
            event.preventDefault();
            pick(found[highlighted]);
          } else if (event.key === "Escape") {
            event.preventDefault();
            onClose();
          } else if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "f") {
            // Asked again while open: keep the box, not the browser's own search.
            event.preventDefault();
            event.currentTarget.select();
          }
        }}
      />
      {query.trim() !== "" && found.length === 0 && (
        <p className="find-box__none muted">No node matches “{query.trim()}”.</p>
      )}
      {found.length > 0 && (
        <ul className="find-box__matches" role="listbox" id="find-box-matches">
          {found.map((item, index) => {
            const by = foundBy(item);
            return (
              <li
                key={item.nodeId}
                id={`find-box-match-${index}`}
                role="option"
                aria-selected={index === highlighted}
                className={index === highlighted ? "find-box__match is-active" : "find-box__match"}
                data-testid={`find-match-${item.nodeId}`}
                // Keeps the focus in the box, which would close as it leaves.
                onMouseDown={(event) => {
                  event.preventDefault();
                }}
                onMouseEnter={() => {
                  setActive(index);
                }}
                onClick={() => {
                  pick(item);
                }}
              >
                <span className="find-box__name">{item.name}</span>
                <span className="find-box__meta muted">
                  {item.kind} · #{item.nodeId}
                  {by !== null && ` · ${by}`}
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
