/**
 * Team review of one open pipeline: its comment threads read at one version or the
 * working copy (`at`), their counts per element (the canvas badges), and the news of
 * review requests and verdicts. The REST answers fill it (`loaded`, `put`,
 * `putComment`); the pipeline's socket adds what the others do (`receive`, from
 * `editor/session.ts` or the review page's feed).
 *
 * What the server derives (whether a thread is outdated at `at`, the counts) is not
 * worked out here: a message after which it may have changed bumps `changes`, and
 * whoever shows the threads fetches them again. Replies, edits, deletions and
 * resolutions are folded in at once, by the pure functions below, whichever of the
 * REST answer and the message comes first.
 */

import { createStore, type StoreApi } from "zustand/vanilla";

import type { ReviewMessage } from "../api/reviewMessages";
import type {
  CommentEntry,
  CommentSummary,
  CommentThread,
  CommentThreadPage,
  VersionAt,
} from "../api/reviews";

/** A review request or a verdict someone gave, as the socket said it. */
export type ReviewNewsMessage = Extract<
  ReviewMessage,
  { readonly type: "review_requested" | "review_verdict" | "approval_revoked" }
>;

export interface ReviewNews {
  /** Counts the news heard: a reader reacts once per serial. */
  readonly serial: number;
  readonly message: ReviewNewsMessage;
}

export interface ReviewStoreState {
  /** What the threads are read at; null until the first load. */
  readonly at: VersionAt | null;
  /** Newest first; null until loaded. */
  readonly threads: readonly CommentThread[] | null;
  /** The cursor of the next page of threads (null: all are here). */
  readonly next: string | null;
  /** The counts per element, for the canvas badges; its own `at` says where they are read. */
  readonly summary: CommentSummary | null;
  /** Bumped when what the server derives may have changed: fetch the threads again. */
  readonly changes: number;
  /** The last review request or verdict heard while open. */
  readonly news: ReviewNews | null;
  /** Counts every message heard (what follows a pipeline's activity reads it again). */
  readonly heard: number;
}

export interface ReviewStoreActions {
  /** A page of threads read at `at`; `more` appends a next page. */
  loaded(at: VersionAt, page: CommentThreadPage, more?: boolean): void;
  /** The counts per element, read where the canvas is (`summary.at`). */
  counted(summary: CommentSummary): void;
  /** A thread as a REST answer has it (read at the store's `at`, or where it was written). */
  put(thread: CommentThread): void;
  /** A comment as a REST answer has it (a reply, an edit, a deletion). */
  putComment(thread: number, comment: CommentEntry): void;
  /** Something asks for a fresh read (the document changed under the threads). */
  invalidate(): void;
  receive(message: ReviewMessage): void;
}

export type ReviewStore = ReviewStoreState & ReviewStoreActions;

// The folds --------------------------------------------------------------------------------

/**
 * `threads` with `thread` in place of the one with its id, or first if it is new. A
 * thread read somewhere else than the one it replaces (a resolution is answered read at
 * the working copy) keeps what the earlier one said of being outdated where it was read.
 */
export function withThread(
  threads: readonly CommentThread[],
  thread: CommentThread,
): readonly CommentThread[] {
  const index = threads.findIndex((t) => t.id === thread.id);
  if (index === -1) {
    return [thread, ...threads];
  }
  return threads.map((t, i) => {
    if (i !== index) {
      return t;
    }
    return thread.at === t.at
      ? thread
      : { ...thread, at: t.at, outdated: t.outdated, outdatedCauses: t.outdatedCauses };
  });
}

/**
 * `threads` with `comment` in its thread: in place of the one with its id, else after
 * the others. A thread whose every comment is deleted is gone, as on the server.
 */
export function withComment(
  threads: readonly CommentThread[],
  threadId: number,
  comment: CommentEntry,
): readonly CommentThread[] {
  const thread = threads.find((t) => t.id === threadId);
  if (thread === undefined) {
    return threads;
  }
  const known = thread.comments.some((c) => c.id === comment.id);
  const comments = known
    ? thread.comments.map((c) => (c.id === comment.id ? comment : c))
    : [...thread.comments, comment];
  if (comments.every((c) => c.deleted)) {
    return threads.filter((t) => t.id !== threadId);
  }
  return threads.map((t) => (t.id === threadId ? { ...t, comments } : t));
}

/** `threads` with a thread resolved (by `user` at `time`) or reopened. */
export function withStatus(
  threads: readonly CommentThread[],
  threadId: number,
  resolved: { readonly user: CommentThread["resolvedBy"]; readonly time: string } | null,
): readonly CommentThread[] {
  return threads.map((t) =>
    t.id !== threadId
      ? t
      : resolved === null
        ? { ...t, status: "open", resolvedBy: null, resolvedAt: null }
        : { ...t, status: "resolved", resolvedBy: resolved.user, resolvedAt: resolved.time },
  );
}

/** What a message does to the threads read at `at`, and whether counts may have changed. */
export function foldMessage(
  threads: readonly CommentThread[],
  at: VersionAt | null,
  message: ReviewMessage,
): { readonly threads: readonly CommentThread[]; readonly changed: boolean } {
  switch (message.type) {
    case "comment_thread_created":
      // The message reads it at the working copy; elsewhere it is read again.
      return at === "working"
        ? { threads: withThread(threads, message.thread), changed: true }
        : { threads, changed: true };
    case "comment_added":
    case "comment_edited":
      return { threads: withComment(threads, message.thread, message.comment), changed: false };
    case "comment_deleted":
      return { threads: withComment(threads, message.thread, message.comment), changed: true };
    case "comment_thread_resolved":
      return {
        threads: withStatus(threads, message.thread, { user: message.user, time: message.at }),
        changed: true,
      };
    case "comment_thread_reopened":
      return { threads: withStatus(threads, message.thread, null), changed: true };
    case "review_requested":
    case "review_verdict":
    case "approval_revoked":
      return { threads, changed: false };
  }
}

// The store --------------------------------------------------------------------------------

export function createReviewStore(): StoreApi<ReviewStore> {
  return createStore<ReviewStore>()((set, get) => ({
    at: null,
    threads: null,
    next: null,
    summary: null,
    changes: 0,
    news: null,
    heard: 0,
    loaded: (at, page, more = false) => {
      const current = get();
      const earlier = more && current.at === at ? (current.threads ?? []) : [];
      const ids = new Set(earlier.map((t) => t.id));
      set({
        at,
        threads: [...earlier, ...page.items.filter((t) => !ids.has(t.id))],
        next: page.next,
      });
    },
    counted: (summary) => {
      set({ summary });
    },
    put: (thread) => {
      const { threads, changes } = get();
      set({ threads: withThread(threads ?? [], thread), changes: changes + 1 });
    },
    putComment: (thread, comment) => {
      const { threads, changes } = get();
      const deleted = comment.deleted;
      set({
        threads: withComment(threads ?? [], thread, comment),
        changes: deleted ? changes + 1 : changes,
      });
    },
    invalidate: () => {
      set({ changes: get().changes + 1 });
    },
    receive: (message) => {
      const state = get();
      const heard = state.heard + 1;
      if (
        message.type === "review_requested" ||
        message.type === "review_verdict" ||
        message.type === "approval_revoked"
      ) {
        set({ news: { serial: (state.news?.serial ?? 0) + 1, message }, heard });
        return;
      }
      const folded = foldMessage(state.threads ?? [], state.at, message);
      set({
        threads: state.threads === null ? null : folded.threads,
        changes: folded.changed ? state.changes + 1 : state.changes,
        heard,
      });
    },
  }));
}
