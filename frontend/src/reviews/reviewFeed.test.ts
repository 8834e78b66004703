import { describe, expect, it } from "vitest";

import { editsDocument, snapshot } from "../test-support/builders";
import { comment, reviewRequest, thread } from "../test-support/reviews";
import { fakeServer } from "../test-support/sockets";
import { ReviewFeed } from "./reviewFeed";

function feed() {
  const server = fakeServer();
  const reviews = new ReviewFeed(7, server.open, server.clock, () => "ws://test/ws/pipelines/7/");
  reviews.connect();
  return { reviews, ...server, state: () => reviews.store.getState() };
}

describe("the review feed", () => {
  it("takes team review's messages and leaves the co-editing ones", () => {
    const { sockets, state } = feed();
    sockets[0]?.deliver(snapshot(editsDocument()));
    state().loaded("working", { items: [thread(1)], next: null });
    sockets[0]?.deliver({ type: "comment_added", thread: 1, comment: comment(11) });
    sockets[0]?.deliver({
      type: "review_requested",
      version: 2,
      request: reviewRequest(),
      state: "in_review",
    });
    sockets[0]?.deliver({ type: "presence_left", clientId: "c9" });
    expect(state().threads?.[0]?.comments.map((c) => c.id)).toEqual([10, 11]);
    expect(state().news?.serial).toBe(1);
    expect(state().changes).toBe(0);
    expect(sockets[0]?.sent).toEqual([]);
  });

  it("reads the threads again after a reconnect, and asks for a snapshot when lost", () => {
    const { sockets, clock, state, reviews } = feed();
    sockets[0]?.deliver(snapshot(editsDocument()));
    sockets[0]?.deliver('{"type":"review_verdict","version":"two"}');
    expect(sockets[0]?.sent).toEqual(['{"type":"resync"}']);
    sockets[0]?.drop();
    expect(reviews.session.getState().status).toBe("reconnecting");
    expect(reviews.session.getState().detail).toContain("reconnecting");
    clock.fire();
    sockets[1]?.deliver(snapshot(editsDocument(), 2));
    expect(state().changes).toBe(1);
    expect(reviews.session.getState()).toMatchObject({ status: "open", detail: null });
  });

  it("stops when the server refuses it", () => {
    const { sockets, clock, reviews } = feed();
    sockets[0]?.drop(4404);
    expect(reviews.session.getState().status).toBe("refused");
    expect(reviews.session.getState().detail).toContain("not a member");
    expect(clock.timers.size).toBe(0);
  });

  it("follows this user's role while open", () => {
    const { sockets, reviews } = feed();
    const opened = snapshot(editsDocument());
    sockets[0]?.deliver(opened);
    expect(reviews.session.getState().you?.role).toBe(opened.you.role);
    const demoted = { ...opened.you, role: "viewer" as const };
    sockets[0]?.deliver({ type: "access_changed", you: demoted, canEdit: false });
    expect(reviews.session.getState().you?.role).toBe("viewer");
    expect(reviews.session.getState().accessChanged?.canEdit).toBe(false);
  });
});
