/**
 * Versions as the history panel and the diff page show them: labels, the
 * order of a comparison, and how the working copy stands against the last
 * saved version.
 */

import type { VersionRef, VersionSummary } from "../api/resources";

/** "version 3" or "the working copy". */
export function versionLabel(ref: VersionRef): string {
  return ref === "working" ? "the working copy" : `version ${ref}`;
}

/** "Version 3" or "The working copy", to start a sentence. */
export function versionTitle(ref: VersionRef): string {
  const label = versionLabel(ref);
  return label.charAt(0).toUpperCase() + label.slice(1);
}

/** "Version 3" or "Working copy", as a heading. */
export function versionName(ref: VersionRef): string {
  return ref === "working" ? "Working copy" : `Version ${ref}`;
}

/** The two sides of a comparison, older first (the working copy is the newest). */
export function diffPair(a: VersionRef, b: VersionRef): { from: VersionRef; to: VersionRef } {
  const rank = (ref: VersionRef): number => (ref === "working" ? Infinity : ref);
  return rank(a) <= rank(b) ? { from: a, to: b } : { from: b, to: a };
}

/**
 * What to compare when the user has picked nothing: the last version and the working copy
 * at `revision` when it moved since; else, when it is that version, the two last versions.
 */
export function defaultPair(
  versions: readonly VersionSummary[],
  revision: number,
): { from: VersionRef; to: VersionRef } | null {
  const latest = versions.at(-1);
  if (latest === undefined) {
    return null;
  }
  if (latest.revision < revision) {
    return { from: latest.number, to: "working" };
  }
  const before = versions.at(-2);
  return { from: before?.number ?? latest.number, to: latest.number };
}

export type WorkingCopyState =
  | { readonly kind: "unsaved" }
  | { readonly kind: "saved"; readonly version: number }
  | { readonly kind: "changed"; readonly version: number; readonly edits: number };

/** Whether the working copy at `revision` is the last saved version, and if not how far it moved. */
export function workingCopyState(
  versions: readonly VersionSummary[],
  revision: number,
): WorkingCopyState {
  const latest = versions.at(-1);
  if (latest === undefined) {
    return { kind: "unsaved" };
  }
  if (latest.revision >= revision) {
    return { kind: "saved", version: latest.number };
  }
  return { kind: "changed", version: latest.number, edits: revision - latest.revision };
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "just now", "5 min ago", "3 h ago", "2 days ago", else the date. */
export function timeAgo(iso: string, now: number): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) {
    return iso;
  }
  const elapsed = now - then;
  if (elapsed < MINUTE) {
    return "just now";
  }
  if (elapsed < HOUR) {
    return `${Math.floor(elapsed / MINUTE)} min ago`;
  }
  if (elapsed < DAY) {
    return `${Math.floor(elapsed / HOUR)} h ago`;
  }
  if (elapsed < 7 * DAY) {
    const days = Math.floor(elapsed / DAY);
    return `${days} day${days === 1 ? "" : "s"} ago`;
  }
  return new Date(then).toISOString().slice(0, 10);
}
