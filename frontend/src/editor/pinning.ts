/**
 * Keeping stateful operators' state restorable, without React: which operators the plan
 * warns about (`state.no-uid`, `backend/compiler/state/kinds.py`: a kind that keeps state in
 * a savepoint, and neither a uid nor a uidHash), the edits that pin the OperatorIDs they
 * have now as `uidHash` or give them readable uids, and what the confirmation says.
 *
 * Which kinds keep state is the server's to say: the operators come from its warnings,
 * so the browser keeps no second list of kinds.
 */

import type { Edit } from "../graph/edits";
import { planNode, type LivePlan } from "../graph/liveplan";
import type { ServerDiagnostic, StreamGraphDocument, StreamNode } from "../graph/streamgraph";

/** The code of the warning about a stateful operator without a uid or uidHash. */
export const STATE_WARNING = "state.no-uid";

export interface StateOperator {
  readonly node: number;
  readonly name: string;
}

export interface PinItem extends StateOperator {
  /** The OperatorID the operator has now, which becomes its uidHash. */
  readonly operatorId: string;
}

export interface UidItem extends StateOperator {
  readonly uid: string;
}

export interface PinProposal {
  readonly items: readonly PinItem[];
  /** Operators without an OperatorID now: the plan has errors, so nothing can be pinned. */
  readonly missing: readonly StateOperator[];
}

/** Whether a diagnostic is the warning about one operator's unpinned state. */
export function isStateWarning(diagnostic: ServerDiagnostic): boolean {
  return diagnostic.code === STATE_WARNING && diagnostic.node !== null;
}

function unpinned(node: StreamNode): boolean {
  return !node.uid && !node.uidHash;
}

/**
 * The operators the plan warns about, in its order, that the document still has without
 * a uid or uidHash (an edit not yet confirmed may have given one); only `nodes` when given.
 */
export function unpinnedOperators(
  document: StreamGraphDocument,
  plan: LivePlan,
  nodes?: readonly number[],
): StateOperator[] {
  const byId = new Map(document.nodes.map((node) => [node.id, node]));
  const seen = new Set<number>();
  const result: StateOperator[] = [];
  for (const diagnostic of plan.diagnostics) {
    const id = diagnostic.node;
    if (!isStateWarning(diagnostic) || id === null || seen.has(id)) {
      continue;
    }
    seen.add(id);
    const node = byId.get(id);
    if (node !== undefined && unpinned(node) && (nodes === undefined || nodes.includes(id))) {
      result.push({ node: id, name: node.name });
    }
  }
  return result;
}

/** The operators to pin (default: every one the plan warns about) with their IDs now. */
export function pinProposal(
  document: StreamGraphDocument,
  plan: LivePlan,
  nodes?: readonly number[],
): PinProposal {
  const items: PinItem[] = [];
  const missing: StateOperator[] = [];
  for (const operator of unpinnedOperators(document, plan, nodes)) {
    const operatorId = planNode(plan, operator.node)?.operatorId;
    if (operatorId === undefined) {
      missing.push(operator);
    } else {
      items.push({ ...operator, operatorId });
    }
  }
  return { items, missing };
}

/** Each operator's uidHash set to its OperatorID now: applied as one undoable step. */
export function pinEdits(items: readonly PinItem[]): Edit[] {
  return items.map((item) => ({
    kind: "set_field",
    element: "node",
    nodeId: item.node,
    field: "uidHash",
    value: item.operatorId,
  }));
}

/**
 * A uid made of a name: lower case, accents dropped, every run of other characters a
 * dash ("Source: Orders" -> "source-orders"); empty when nothing is left.
 */
export function readableUid(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/**
 * A readable uid for every operator the plan warns about, unique in the pipeline (the
 * compiler refuses a uid used twice): a taken one gets `-2`, `-3`, ...; a name without
 * letters or digits gives `operator-<node id>`.
 */
export function uidProposal(document: StreamGraphDocument, plan: LivePlan): UidItem[] {
  const taken = new Set(
    document.nodes.flatMap((node) => (typeof node.uid === "string" ? [node.uid] : [])),
  );
  return unpinnedOperators(document, plan).map((operator) => {
    const base = readableUid(operator.name) || `operator-${operator.node}`;
    let uid = base;
    for (let n = 2; taken.has(uid); n += 1) {
      uid = `${base}-${n}`;
    }
    taken.add(uid);
    return { ...operator, uid };
  });
}

/** Each operator's uid set: applied as one undoable step. */
export function uidEdits(items: readonly UidItem[]): Edit[] {
  return items.map((item) => ({
    kind: "set_field",
    element: "node",
    nodeId: item.node,
    field: "uid",
    value: item.uid,
  }));
}

function operators(count: number): string {
  return count === 1 ? "1 operator" : `${count} operators`;
}

/** What pinning does, above the list of operators and IDs. */
export function pinText(proposal: PinProposal): string {
  if (proposal.items.length === 0) {
    return proposal.missing.length > 0
      ? "The plan has errors, so these operators have no OperatorID to pin: fix the errors first."
      : "Every stateful operator has a uid or uidHash: there is nothing to pin.";
  }
  return (
    `Pin ${operators(proposal.items.length)}: each keeps the OperatorID it has now as its ` +
    "uidHash, so Flink finds its state in a savepoint taken under that ID after later " +
    "changes around it. Savepoints taken after such a change hold the state under the new " +
    "ID: pin again then, or give the operator a uid. The IDs stay as they are; one undo " +
    "takes it back."
  );
}

/**
 * What readable uids do, above the list of operators and uids: they change the IDs once,
 * so they are for pipelines no savepoint was taken of yet.
 */
export function uidText(items: readonly UidItem[], savedVersions: number | null): string {
  if (items.length === 0) {
    return "Every stateful operator has a uid or uidHash: there is nothing to name.";
  }
  const what =
    `Give ${operators(items.length)} a uid made of its name. A uid replaces the ` +
    "OperatorID derived from the graph, so each ID changes once, now: do it before the " +
    "first deploy.";
  if (savedVersions === null || savedVersions === 0) {
    return what;
  }
  const versions = savedVersions === 1 ? "1 saved version" : `${savedVersions} saved versions`;
  return (
    `${what} This pipeline has ${versions}: a savepoint of those would not restore these ` +
    "operators' state under the new IDs. To keep it, pin their current IDs instead."
  );
}

/** The pipeline settings' line about operators whose state is not pinned. */
export function stateSummary(unpinnedCount: number): string {
  if (unpinnedCount === 0) {
    return (
      "Every stateful operator has a uid or uidHash: a uid keeps its state through changes " +
      "around it; a uidHash finds the state saved under that ID."
    );
  }
  const which =
    unpinnedCount === 1 ? "1 stateful operator has" : `${unpinnedCount} stateful operators have`;
  return (
    `${which} no uid or uidHash: a change upstream can give such an operator a new ` +
    "OperatorID, and a savepoint's state for it is then not restored. Pin their current " +
    "IDs (for a pipeline that ran), or give them readable uids (before the first deploy)."
  );
}
