/**
 * Finding an operator on the canvas by what one remembers of it: its name, its kind,
 * its node id, its uid, or the start of one of its hashes (OperatorID, JobVertexID,
 * the uid's hash), as the plan, Flink's web UI and its logs show them. Plain data,
 * so the find box and the tests share it.
 */

import type { OperatorSpec } from "../api/resources";
import { planNode, type LivePlan } from "../graph/liveplan";
import type { StreamGraphDocument } from "../graph/streamgraph";

/** What a node was found by, best first: a node is listed once, by the best of them. */
export const FOUND_BY = ["id", "name", "kind", "uid", "operatorId", "vertex", "uidHash"] as const;
export type FoundBy = (typeof FOUND_BY)[number];

export interface Found {
  readonly nodeId: number;
  readonly name: string;
  /** The catalog's label of its kind, else the kind as the document has it. */
  readonly kind: string;
  readonly by: FoundBy;
  /** The value that matched (the whole hash, for a hash). */
  readonly text: string;
}

/** Fewer hex digits than this match too many hashes by chance. */
export const MIN_HASH_PREFIX = 4;

/** How many matches are listed at most. */
export const MAX_FOUND = 50;

/** The order within one kind of match: exact, then a prefix, then anywhere. */
function closeness(value: string, needle: string): number | null {
  const text = value.toLowerCase();
  if (text === needle) {
    return 0;
  }
  if (text.startsWith(needle)) {
    return 1;
  }
  return text.includes(needle) ? 2 : null;
}

interface Candidate {
  readonly by: FoundBy;
  readonly text: string;
  /** Lower is better: exact, prefix, anywhere. */
  readonly closeness: number;
}

/**
 * The nodes of `document` that `query` finds, best first: by node id (`7` or `#7`),
 * name, kind (catalog label or kind), uid, then by the start of their OperatorID,
 * JobVertexID or uid hash (at least `MIN_HASH_PREFIX` hex digits). Case does not
 * matter; nodes found equally well keep document order. At most `limit`.
 */
export function findNodes(
  document: StreamGraphDocument,
  plan: LivePlan | null,
  specs: ReadonlyMap<string, OperatorSpec>,
  query: string,
  limit: number = MAX_FOUND,
): Found[] {
  const needle = query.trim().toLowerCase();
  if (needle === "") {
    return [];
  }
  const idMatch = /^#?(\d+)$/.exec(needle);
  const wantedId = idMatch === null ? null : Number(idMatch[1]);
  const hash = needle.length >= MIN_HASH_PREFIX && /^[0-9a-f]+$/.test(needle) ? needle : null;
  const found: (Found & { readonly rank: number; readonly position: number })[] = [];
  document.nodes.forEach((node, position) => {
    const spec = specs.get(node.operator ?? "");
    const kind = spec?.label ?? node.operator ?? "";
    const facts = plan === null ? undefined : planNode(plan, node.id);
    const candidates: Candidate[] = [];
    if (wantedId === node.id) {
      candidates.push({ by: "id", text: `#${node.id}`, closeness: 0 });
    }
    const textual: [FoundBy, string | null | undefined][] = [
      ["name", node.name],
      ["kind", spec?.label],
      ["kind", node.operator],
      ["uid", node.uid],
    ];
    for (const [by, value] of textual) {
      const close = value ? closeness(value, needle) : null;
      if (value && close !== null) {
        candidates.push({ by, text: value, closeness: close });
      }
    }
    if (hash !== null) {
      const hashes: [FoundBy, string | null | undefined][] = [
        ["operatorId", facts?.operatorId],
        ["vertex", facts?.vertex],
        ["uidHash", facts?.userDefinedId],
        ["uidHash", node.uidHash],
      ];
      for (const [by, value] of hashes) {
        if (value?.toLowerCase().startsWith(hash)) {
          candidates.push({ by, text: value, closeness: 1 });
        }
      }
    }
    const best = candidates.reduce<Candidate | null>((current, candidate) => {
      if (current === null) {
        return candidate;
      }
      const order = FOUND_BY.indexOf(candidate.by) - FOUND_BY.indexOf(current.by);
      return order < 0 || (order === 0 && candidate.closeness < current.closeness)
        ? candidate
        : current;
    }, null);
    if (best !== null) {
      found.push({
        nodeId: node.id,
        name: node.name,
        kind,
        by: best.by,
        text: best.text,
        // By what it was found by first, then by how closely.
        rank: FOUND_BY.indexOf(best.by) * 3 + best.closeness,
        position,
      });
    }
  });
  found.sort((a, b) => a.rank - b.rank || a.position - b.position);
  return found
    .slice(0, limit)
    .map(({ nodeId, name, kind: label, by, text }) => ({ nodeId, name, kind: label, by, text }));
}
