/**
 * What the restore check says of each operator of the working copy, for the marks on the
 * canvas: it restores state, it should take state that is lost (or its state is refused),
 * or it starts empty.
 */

import type { RestoreCheck } from "../api/savepoints";
import { stateOwnerText, stateText } from "./format";

/**
 * `restored`: takes a savepoint operator's state; `lost`: should take state that nothing
 * takes (the operator suggested, or chosen, for it); `refused`: its state is there but
 * Flink refuses it (max parallelism); `new`: restores nothing, starts empty.
 */
export type MarkerKind = "restored" | "lost" | "refused" | "new";

export interface NodeMarker {
  readonly kind: MarkerKind;
  /** What the mark says on hover, one line per state. */
  readonly title: string;
}

/** When one node has several, the one shown: what needs a look first. */
const RANK: Readonly<Record<MarkerKind, number>> = { refused: 0, lost: 1, restored: 2, new: 3 };

export const MARKER_LABELS: Readonly<Record<MarkerKind, string>> = {
  restored: "restored",
  lost: "lost",
  refused: "refused",
  new: "new",
};

class Markers {
  readonly byNode = new Map<number, { kind: MarkerKind; lines: string[] }>();

  add(node: number, kind: MarkerKind, line: string): void {
    const found = this.byNode.get(node);
    if (found === undefined) {
      this.byNode.set(node, { kind, lines: [line] });
      return;
    }
    found.lines.push(line);
    if (RANK[kind] < RANK[found.kind]) {
      found.kind = kind;
    }
  }
}

/**
 * The marks of the working copy's nodes (`nodes`: the ids it has) from a check of it.
 * `chosen` maps a lost state's OperatorID to the node picked to take it over, in place of
 * the check's suggestion (null: none).
 */
export function nodeMarkers(
  check: RestoreCheck,
  nodes: ReadonlySet<number>,
  chosen: ReadonlyMap<string, number | null> = new Map(),
): ReadonlyMap<number, NodeMarker> {
  const markers = new Markers();
  for (const row of check.operators) {
    const owner = stateOwnerText(row.name, row.operatorId);
    if (row.outcome === "restored" && row.target !== null) {
      markers.add(
        row.target.node,
        "restored",
        `Restores the state of ${owner}: ${stateText(row.state)}`,
      );
    } else if (
      (row.outcome === "max-parallelism" || row.outcome === "parallelism-above-max") &&
      row.target !== null
    ) {
      markers.add(
        row.target.node,
        "refused",
        `Cannot restore the state of ${owner}: ${row.reasons[0] ?? row.outcome}`,
      );
    } else if (row.outcome === "lost") {
      const node = chosen.has(row.operatorId) ? chosen.get(row.operatorId) : row.suggestedNode;
      if (node !== null && node !== undefined) {
        markers.add(
          node,
          "lost",
          `Should take the lost state of ${owner} (${stateText(row.state)}): Map lost state sets its uidHash`,
        );
      }
    }
  }
  for (const op of check.newOperators) {
    markers.add(
      op.node,
      "new",
      op.stateful
        ? "Starts empty: no state of the savepoint maps to it"
        : "Starts empty (it keeps no state)",
    );
  }
  const result = new Map<number, NodeMarker>();
  for (const [node, { kind, lines }] of markers.byNode) {
    if (nodes.has(node)) {
      result.set(node, { kind, title: lines.join("\n") });
    }
  }
  return result;
}
