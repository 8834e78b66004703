/**
 * The restore check's answer as the State panel leads with it: one sentence and its tone,
 * then what would change the answer.
 */

import type { RestoreCheck } from "../api/savepoints";
import { stateOwnerText } from "./format";

/**
 * `restores`: Flink starts it with every state that holds something; `dropping`: it starts,
 * leaving state behind (unclaimed state allowed); `fails`: Flink refuses to start it;
 * `not-compiled`: there is no job to start.
 */
export type VerdictTone = "restores" | "dropping" | "fails" | "not-compiled";

export interface RestoreVerdict {
  readonly tone: VerdictTone;
  /** The server's sentence: "Restores", "Fails: state of Sum (90bea66d...) has no ...". */
  readonly title: string;
  readonly details: readonly string[];
}

function lostOwners(check: RestoreCheck): string[] {
  return check.operators
    .filter((row) => row.outcome === "lost")
    .map((row) => stateOwnerText(row.name, row.operatorId));
}

export function restoreVerdict(check: RestoreCheck): RestoreVerdict {
  const lost = lostOwners(check);
  if (check.restores) {
    if (lost.length === 0) {
      return { tone: "restores", title: check.verdict, details: [] };
    }
    return {
      tone: "dropping",
      title: check.verdict,
      details: [`Dropped because unclaimed state is allowed: the state of ${lost.join(", ")}.`],
    };
  }
  const details: string[] = [];
  if (!check.allowNonRestoredState && check.restoresAllowingNonRestoredState) {
    details.push(
      lost.length === 0
        ? "It would restore allowing non-restored state."
        : `It would restore allowing non-restored state, dropping the state of ${lost.join(", ")}.`,
    );
  } else if (!check.allowNonRestoredState) {
    details.push("Allowing non-restored state would not help: Flink refuses this even then.");
  }
  if (check.failure !== null) {
    details.push(`Flink says: ${check.failure.message}`);
  }
  return { tone: "fails", title: check.verdict, details };
}

/** A version that does not compile has no job to start: the server's 409, in words. */
export function notCompiledVerdict(message: string): RestoreVerdict {
  return {
    tone: "not-compiled",
    title: "Does not compile: there is no job to start from the savepoint",
    details: [message],
  };
}

/**
 * What was checked against what: "The working copy at revision 12, against “production”;
 * lost state explained by version 1, which wrote it."
 */
export function checkedText(check: RestoreCheck): string {
  const what =
    check.checked === "working"
      ? `The working copy at revision ${check.revision ?? "?"}`
      : `Version ${check.checked}`;
  const explained =
    check.comparedWith === null
      ? ""
      : `; lost state explained by version ${check.comparedWith}, which wrote it`;
  return `${what}, against “${check.savepoint.label}”${explained}.`;
}
