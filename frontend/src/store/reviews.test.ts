import { describe, expect, it } from "vitest";

import {
  ADA,
  comment,
  GRACE,
  reviewRequest,
  summary,
  thread,
  verdict,
} from "../test-support/reviews";
import { createReviewStore, foldMessage, withComment, withThread } from "./reviews";

function loadedStore(at: number | "working" = "working") {
  const store = createReviewStore();
  const threads = [thread(2, { at }), thread(1, { at })];
  store.getState().loaded(at, { items: threads, next: null });
  return store;
}

describe("the review store", () => {
  it("holds the threads read at one place, and appends a next page", () => {
    const store = createReviewStore();
    store.getState().loaded(3, { items: [thread(5, { at: 3 })], next: "c1" });
    store
      .getState()
      .loaded(3, { items: [thread(5, { at: 3 }), thread(4, { at: 3 })], next: null }, true);
    const state = store.getState();
    expect(state.at).toBe(3);
    expect(state.threads?.map((t) => t.id)).toEqual([5, 4]);
    expect(state.next).toBeNull();
  });

  it("starts over when read somewhere else", () => {
    const store = loadedStore(3);
    store.getState().loaded("working", { items: [thread(9)], next: null }, true);
    expect(store.getState().threads?.map((t) => t.id)).toEqual([9]);
  });

  it("keeps the counts for the badges apart from the threads", () => {
    const store = loadedStore(3);
    store.getState().counted(summary({ at: "working" }));
    expect(store.getState().summary?.at).toBe("working");
    expect(store.getState().at).toBe(3);
  });

  it("adds a thread opened elsewhere when read at the working copy, and asks for counts", () => {
    const store = loadedStore();
    store.getState().receive({ type: "comment_thread_created", thread: thread(3) });
    expect(store.getState().threads?.map((t) => t.id)).toEqual([3, 2, 1]);
    expect(store.getState().changes).toBe(1);
  });

  it("leaves a thread read at the working copy out of a version's list, and reads again", () => {
    const store = loadedStore(2);
    store.getState().receive({ type: "comment_thread_created", thread: thread(3) });
    expect(store.getState().threads?.map((t) => t.id)).toEqual([2, 1]);
    expect(store.getState().changes).toBe(1);
  });

  it("folds replies, edits and deletions into their thread, once each", () => {
    const store = loadedStore();
    const reply = comment(77, { author: GRACE, body: "Why @ada?", mentions: [ADA] });
    store.getState().putComment(2, reply);
    store.getState().receive({ type: "comment_added", thread: 2, comment: reply });
    expect(store.getState().threads?.[0]?.comments.map((c) => c.id)).toEqual([20, 77]);
    expect(store.getState().changes).toBe(0);

    const edited = { ...reply, body: "Why, @ada?", editedAt: "2026-01-02T10:05:00Z" };
    store.getState().receive({ type: "comment_edited", thread: 2, comment: edited });
    expect(store.getState().threads?.[0]?.comments[1]?.body).toBe("Why, @ada?");

    store.getState().receive({
      type: "comment_deleted",
      thread: 2,
      comment: { ...edited, body: "", deleted: true },
    });
    expect(store.getState().threads?.[0]?.comments[1]).toMatchObject({ body: "", deleted: true });
    expect(store.getState().changes).toBe(1);
  });

  it("drops a thread whose every comment is deleted, as the server does", () => {
    const threads = [thread(2), thread(1)];
    const left = withComment(threads, 2, { ...comment(20), body: "", deleted: true });
    expect(left.map((t) => t.id)).toEqual([1]);
    expect(withComment(threads, 99, comment(5))).toBe(threads);
  });

  it("resolves and reopens threads", () => {
    const store = loadedStore();
    store.getState().receive({
      type: "comment_thread_resolved",
      thread: 1,
      user: GRACE,
      at: "2026-01-02T12:00:00Z",
    });
    expect(store.getState().threads?.[1]).toMatchObject({
      status: "resolved",
      resolvedBy: GRACE,
      resolvedAt: "2026-01-02T12:00:00Z",
    });
    store.getState().receive({
      type: "comment_thread_reopened",
      thread: 1,
      user: ADA,
      at: "2026-01-02T12:05:00Z",
    });
    expect(store.getState().threads?.[1]).toMatchObject({ status: "open", resolvedBy: null });
    expect(store.getState().changes).toBe(2);
  });

  it("keeps where a thread is outdated when an answer reads it somewhere else", () => {
    const at2 = thread(1, {
      at: 2,
      outdated: true,
      outdatedCauses: ["node 3 (Total) was removed"],
    });
    const answer = thread(1, { status: "resolved", resolvedBy: GRACE });
    const [merged] = withThread([at2], answer);
    expect(merged).toMatchObject({
      at: 2,
      status: "resolved",
      outdated: true,
      outdatedCauses: ["node 3 (Total) was removed"],
    });
    expect(withThread([thread(1)], thread(1, { outdated: true }))[0]?.outdated).toBe(true);
  });

  it("keeps the last review request or verdict as news, numbered", () => {
    const store = loadedStore();
    const requested = {
      type: "review_requested",
      version: 2,
      request: reviewRequest(),
      state: "in_review",
    } as const;
    store.getState().receive(requested);
    expect(store.getState().news).toEqual({ serial: 1, message: requested });
    const given = {
      type: "review_verdict",
      version: 2,
      verdict: verdict(),
      state: "approved",
    } as const;
    store.getState().receive(given);
    expect(store.getState().news).toEqual({ serial: 2, message: given });
    expect(store.getState().changes).toBe(0);
    expect(store.getState().heard).toBe(2);
  });

  it("takes messages before the threads are loaded without making a list up", () => {
    const store = createReviewStore();
    store.getState().receive({ type: "comment_added", thread: 1, comment: comment(3) });
    expect(store.getState().threads).toBeNull();
    expect(foldMessage([], null, { type: "comment_thread_created", thread: thread(1) })).toEqual({
      threads: [],
      changed: true,
    });
  });
});
