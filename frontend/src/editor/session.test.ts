import { describe, expect, it } from "vitest";

import { editsDocument, presenceEntry, snapshot } from "../test-support/builders";
import { comment, reviewRequest, thread } from "../test-support/reviews";
import { fakeServer } from "../test-support/sockets";
import { EditorSession } from "./session";

function session() {
  const server = fakeServer();
  const editor = new EditorSession(7, server.open, server.clock, () => "ws://test/ws/pipelines/7/");
  editor.connect();
  return { editor, ...server, state: () => editor.state.getState() };
}

describe("the editor's session", () => {
  it("opens with the snapshot and keeps the others' presence", () => {
    const { sockets, state, editor } = session();
    expect(state().status).toBe("connecting");
    sockets[0]?.deliver({
      ...snapshot(editsDocument()),
      presence: [presenceEntry("me"), presenceEntry("c2", "grace")],
    });
    expect(state().status).toBe("open");
    expect(Object.keys(state().others)).toEqual(["c2"]);
    expect(editor.document.getState().revision).toBe(1);
  });

  it("forgets the others while reconnecting, and asks for a snapshot when lost", () => {
    const { sockets, clock, state, editor } = session();
    sockets[0]?.deliver({
      ...snapshot(editsDocument()),
      presence: [presenceEntry("me"), presenceEntry("c2", "grace")],
    });
    sockets[0]?.deliver("{not json");
    expect(sockets[0]?.sent).toEqual(['{"type":"resync"}']);
    sockets[0]?.drop();
    expect(state()).toMatchObject({ status: "reconnecting", others: {} });
    clock.fire();
    sockets[1]?.deliver(snapshot(editsDocument(), 2));
    expect(state().status).toBe("open");
    // What was said of the review meanwhile is read again.
    expect(editor.reviews.getState().changes).toBe(1);
  });

  it("hands team review's messages to the review store, and asks for no snapshot", () => {
    const { sockets, editor } = session();
    sockets[0]?.deliver(snapshot(editsDocument()));
    editor.reviews.getState().loaded("working", { items: [thread(1)], next: null });
    sockets[0]?.deliver({ type: "comment_added", thread: 1, comment: comment(11) });
    sockets[0]?.deliver({
      type: "review_requested",
      version: 2,
      request: reviewRequest(),
      state: "in_review",
    });
    const reviews = editor.reviews.getState();
    expect(reviews.threads?.[0]?.comments.map((c) => c.id)).toEqual([10, 11]);
    expect(reviews.news?.message.type).toBe("review_requested");
    expect(sockets[0]?.sent).toEqual([]);
    expect(editor.document.getState().revision).toBe(1);
  });

  it("asks for a snapshot after a review message it cannot read", () => {
    const { sockets, editor } = session();
    sockets[0]?.deliver(snapshot(editsDocument()));
    sockets[0]?.deliver({ type: "comment_added", thread: 1 });
    expect(sockets[0]?.sent).toEqual(['{"type":"resync"}']);
    expect(editor.reviews.getState().changes).toBe(0);
  });

  it("says why the server refused it, and stops", () => {
    const { sockets, clock, state } = session();
    sockets[0]?.drop(4401);
    expect(state()).toMatchObject({
      status: "refused",
      detail: "You are signed out. Sign in again to edit.",
    });
    expect(clock.timers.size).toBe(0);
  });
});
