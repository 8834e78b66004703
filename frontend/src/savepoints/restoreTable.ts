/**
 * The restore check's rows as the State panel's table shows them: per operator state of
 * the savepoint (in the file's order, as Flink checks them) what it holds, what becomes of
 * it and where it goes; then the operators that start empty.
 */

import type { NewOperator, OperatorRestore, RestoreCheck, RestoreOutcome } from "../api/savepoints";
import { formatBytes, stateText } from "./format";

/** `ok`: restored; `dropped`: harmlessly left behind; `problem`: lost or refused. */
export type RowTone = "ok" | "dropped" | "problem";

const OUTCOMES: Readonly<Record<RestoreOutcome, { label: string; tone: RowTone }>> = {
  restored: { label: "restored", tone: "ok" },
  empty: { label: "empty, dropped", tone: "dropped" },
  lost: { label: "lost", tone: "problem" },
  shadowed: { label: "shadowed", tone: "problem" },
  "max-parallelism": { label: "max parallelism differs", tone: "problem" },
  "parallelism-above-max": { label: "parallelism above max", tone: "problem" },
};

export function outcomeLabel(outcome: RestoreOutcome): string {
  return OUTCOMES[outcome].label;
}

export interface RestoreRow {
  readonly operatorId: string;
  /** The savepoint's name for it; "unnamed" before Flink 1.17 wrote names. */
  readonly name: string;
  readonly uid: string | null;
  readonly parallelism: number;
  readonly maxParallelism: number;
  /** "keyed 3.2 KiB" or "no state". */
  readonly state: string;
  /** Over every kind, for sorting and titles. */
  readonly totalBytes: number;
  readonly outcome: RestoreOutcome;
  readonly outcomeLabel: string;
  readonly tone: RowTone;
  /** The operator that takes it (or that refuses it for its max parallelism). */
  readonly target: {
    readonly node: number;
    /** "Sum (5)". */
    readonly text: string;
    readonly matchedBy: string;
    readonly vertexId: string;
    readonly vertexName: string;
    /** "p3, max 128". */
    readonly subtasks: string;
  } | null;
  readonly reasons: readonly string[];
}

const MATCHED_BY = {
  "operator-id": "generated ID",
  uid: "uid",
  "uid-hash": "uidHash",
} as const;

export function restoreRow(row: OperatorRestore): RestoreRow {
  const outcome = OUTCOMES[row.outcome];
  const target = row.target;
  return {
    operatorId: row.operatorId,
    name: row.name ?? "unnamed",
    uid: row.uid,
    parallelism: row.parallelism,
    maxParallelism: row.maxParallelism,
    state: stateText(row.state),
    totalBytes: row.state.reduce((sum, size) => sum + size.bytes, 0),
    outcome: row.outcome,
    outcomeLabel: outcome.label,
    tone: outcome.tone,
    target:
      target === null
        ? null
        : {
            node: target.node,
            text: `${target.name} (${target.node})`,
            matchedBy: MATCHED_BY[target.matchedBy],
            vertexId: target.vertexId,
            vertexName: target.vertexName,
            subtasks: `p${target.parallelism}, max ${target.maxParallelism}`,
          },
    reasons: row.reasons,
  };
}

export function restoreRows(check: RestoreCheck): RestoreRow[] {
  return check.operators.map(restoreRow);
}

/** How many rows of each tone: the table's caption. */
export function rowCounts(rows: readonly RestoreRow[]): string {
  const counts = { ok: 0, dropped: 0, problem: 0 };
  for (const row of rows) {
    counts[row.tone] += 1;
  }
  const parts = [`${counts.ok} restored`];
  if (counts.problem > 0) {
    parts.push(`${counts.problem} not`);
  }
  if (counts.dropped > 0) {
    parts.push(`${counts.dropped} empty`);
  }
  const bytes = rows.reduce((sum, row) => sum + row.totalBytes, 0);
  return `${rows.length} operator states (${formatBytes(bytes)}): ${parts.join(", ")}`;
}

export interface NewOperatorRow {
  readonly node: number;
  /** "Sum (5)". */
  readonly text: string;
  readonly operator: string;
  readonly operatorId: string;
  readonly stateful: boolean;
}

/** The operators that start empty, those that keep state first (their emptiness matters). */
export function newOperatorRows(operators: readonly NewOperator[]): NewOperatorRow[] {
  const rows = operators.map((op) => ({
    node: op.node,
    text: `${op.name} (${op.node})`,
    operator: op.operator,
    operatorId: op.operatorId,
    stateful: op.stateful,
  }));
  return [...rows.filter((row) => row.stateful), ...rows.filter((row) => !row.stateful)];
}
