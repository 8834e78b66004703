/**
 * Savepoints and their state in words: sizes, kinds of state, a savepoint's line in a
 * list, and which one to show when the user has picked none.
 */

import type { SavepointSummary, StateKind, StateSizeEntry } from "../api/savepoints";
import { shortId } from "../ui/CopyId";
import { timeAgo } from "../versions/history";

const UNITS = ["KiB", "MiB", "GiB", "TiB"] as const;

/** "0 B", "546 B", "3.2 KiB", "64 MiB": binary units, one decimal below ten. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 1024) {
    return `${Math.max(0, Math.round(Number.isFinite(bytes) ? bytes : 0))} B`;
  }
  let value = bytes;
  let unit: string = UNITS[0];
  for (const next of UNITS) {
    value /= 1024;
    unit = next;
    if (value < 1024) {
      break;
    }
  }
  const text = value < 10 ? value.toFixed(1).replace(/\.0$/, "") : String(Math.round(value));
  return `${text} ${unit}`;
}

/** Every kind of state a savepoint holds, as the table names it (a record, so a kind the
 * server gains and this lacks does not compile). */
const KIND_LABELS: Readonly<Record<StateKind, string>> = {
  keyed: "keyed",
  "keyed-raw": "keyed (raw)",
  "operator-list": "list",
  "operator-union": "union list",
  "operator-broadcast": "broadcast",
  "operator-raw": "operator (raw)",
  coordinator: "coordinator",
  "input-channel": "input channels",
  "output-channel": "output channels",
};

export function stateKindLabel(kind: StateKind): string {
  return KIND_LABELS[kind];
}

/** "keyed 3.2 KiB, list 546 B"; "no state" when it holds nothing. */
export function stateText(sizes: readonly StateSizeEntry[]): string {
  if (sizes.length === 0) {
    return "no state";
  }
  return sizes.map((size) => `${stateKindLabel(size.kind)} ${formatBytes(size.bytes)}`).join(", ");
}

/** "Sum (c27dcf7b…)", or the short id alone when the savepoint has no name for it. */
export function stateOwnerText(name: string | null, operatorId: string): string {
  return name === null ? `operator ${shortId(operatorId)}…` : `${name} (${shortId(operatorId)}…)`;
}

/** "3 min ago by ada · 6.3 KiB · format 6 · 6 operators · written by version 2". */
export function savepointFacts(savepoint: SavepointSummary, now: number): string {
  const facts = [
    `${timeAgo(savepoint.uploadedAt, now)} by ${savepoint.uploadedBy?.username ?? "a former member"}`,
    formatBytes(savepoint.size),
    `format ${savepoint.formatVersion}`,
    savepoint.operatorCount === 1 ? "1 operator" : `${savepoint.operatorCount} operators`,
  ];
  if (savepoint.writtenBy !== null) {
    facts.push(`written by version ${savepoint.writtenBy}`);
  }
  return facts.join(" · ");
}

/**
 * The savepoint to show: the one picked while it still exists, else the current one, else
 * the newest (the list is newest first); null when there are none.
 */
export function shownSavepoint(
  savepoints: readonly SavepointSummary[],
  picked: number | null,
): number | null {
  if (picked !== null && savepoints.some((savepoint) => savepoint.id === picked)) {
    return picked;
  }
  return (savepoints.find((savepoint) => savepoint.isCurrent) ?? savepoints[0])?.id ?? null;
}
