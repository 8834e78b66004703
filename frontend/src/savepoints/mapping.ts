/**
 * "Map lost state": for each operator state of the savepoint that no operator of the working
 * copy takes, the operator that should take it over, and the edits that make it so: its
 * `uidHash` set to the savepoint's OperatorID, the repair Flink's documentation prescribes
 * for state whose operator's generated ID changed.
 */

import type { SetNodeFieldEdit } from "../graph/edits";
import type { StreamGraphDocument, StreamNode } from "../graph/streamgraph";
import type { RestoreCheck } from "../api/savepoints";
import { shortId } from "../ui/CopyId";
import { stateOwnerText, stateText } from "./format";

export interface LostState {
  readonly operatorId: string;
  /** "Sum (c27dcf7b…)". */
  readonly owner: string;
  /** "keyed 3.2 KiB". */
  readonly state: string;
  /** The server's suggestion: the operator that wrote it, or one of the same name. */
  readonly suggested: number | null;
}

/** The state that holds something and maps to no operator, in the savepoint's order. */
export function lostStates(check: RestoreCheck): LostState[] {
  return check.operators
    .filter((row) => row.outcome === "lost")
    .map((row) => ({
      operatorId: row.operatorId,
      owner: stateOwnerText(row.name, row.operatorId),
      state: stateText(row.state),
      suggested: row.suggestedNode,
    }));
}

/** A lost state's OperatorID -> the node picked to take it (null: leave it lost). */
export type Choices = ReadonlyMap<string, number | null>;

/** The suggestions of the check, for the nodes the working copy still has. */
export function suggestedChoices(check: RestoreCheck, document: StreamGraphDocument): Choices {
  const ids = new Set(document.nodes.map((node) => node.id));
  return new Map(
    lostStates(check).map((lost) => [
      lost.operatorId,
      lost.suggested !== null && ids.has(lost.suggested) ? lost.suggested : null,
    ]),
  );
}

/** The choices the user made over the check's suggestions, for the states still lost. */
export function choicesFor(
  check: RestoreCheck,
  document: StreamGraphDocument,
  chosen: Choices,
): Choices {
  const merged = new Map(suggestedChoices(check, document));
  for (const [operatorId, node] of chosen) {
    if (merged.has(operatorId)) {
      merged.set(operatorId, node);
    }
  }
  return merged;
}

function nodeText(node: StreamNode): string {
  return `${node.name} (${node.id})`;
}

export interface NodeOption {
  readonly node: number;
  /** "Sum (5) · reduce". */
  readonly label: string;
}

/** Every operator of the working copy, in the document's order. */
export function nodeOptions(document: StreamGraphDocument): NodeOption[] {
  return document.nodes.map((node) => ({
    node: node.id,
    label: `${nodeText(node)} · ${node.operator ?? "operator"}`,
  }));
}

export interface MappingPlan {
  /** One `set_field` of `uidHash` per operator that takes state over: apply them as one step. */
  readonly edits: readonly SetNodeFieldEdit[];
  /** What each edit does, one line each. */
  readonly lines: readonly string[];
  /** Why the choices cannot be applied as they are; nothing is applied while any remain. */
  readonly problems: readonly string[];
}

/** The state each node restores now that holds something: a uidHash would leave it behind. */
function restoredOwners(check: RestoreCheck): Map<number, string> {
  const owners = new Map<number, string>();
  for (const row of check.operators) {
    if (row.outcome === "restored" && row.target !== null && row.hasState) {
      owners.set(row.target.node, stateOwnerText(row.name, row.operatorId));
    }
  }
  return owners;
}

/** The edits that give each chosen node its lost state, or why they cannot be made. */
export function mappingPlan(
  check: RestoreCheck,
  document: StreamGraphDocument,
  choices: Choices,
): MappingPlan {
  const nodes = new Map(document.nodes.map((node) => [node.id, node]));
  const restoring = restoredOwners(check);
  const edits: SetNodeFieldEdit[] = [];
  const lines: string[] = [];
  const problems: string[] = [];
  const takers = new Map<number, string[]>();
  for (const lost of lostStates(check)) {
    const chosen = choices.get(lost.operatorId) ?? null;
    if (chosen === null) {
      continue;
    }
    const node = nodes.get(chosen);
    if (node === undefined) {
      problems.push(`Node ${chosen}, chosen for ${lost.owner}, is not in the working copy.`);
      continue;
    }
    takers.set(chosen, [...(takers.get(chosen) ?? []), lost.owner]);
    const restored = restoring.get(chosen);
    if (restored !== undefined) {
      problems.push(
        `${nodeText(node)} restores the state of ${restored}: with its uidHash set to ` +
          `${shortId(lost.operatorId)}… it would leave that state behind.`,
      );
      continue;
    }
    if (node.uidHash === lost.operatorId) {
      continue; // already set; the check has not caught up with the edit
    }
    edits.push({
      kind: "set_field",
      element: "node",
      nodeId: node.id,
      field: "uidHash",
      value: lost.operatorId,
    });
    const replacing =
      node.uidHash === undefined || node.uidHash === null
        ? ""
        : ` (in place of ${shortId(node.uidHash)}…)`;
    lines.push(
      `${nodeText(node)} takes the state saved under ${shortId(lost.operatorId)}…: its uidHash ` +
        `is set to that ID${replacing}, the repair Flink's documentation prescribes.`,
    );
  }
  for (const [node, owners] of takers) {
    if (owners.length > 1) {
      const taker = nodes.get(node);
      problems.push(
        `${taker === undefined ? `Node ${node}` : nodeText(taker)} is chosen for ` +
          `${owners.join(" and ")}: an operator takes over the state of one.`,
      );
    }
  }
  return { edits, lines, problems };
}
