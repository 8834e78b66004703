import { describe, expect, it } from "vitest";

import { fakeServer } from "../test-support/sockets";
import { followInbox, isInboxChanged } from "./inboxSocket";

function follow() {
  const server = fakeServer();
  let nudges = 0;
  const stop = followInbox(
    () => {
      nudges += 1;
    },
    server.open,
    server.clock,
    () => "ws://test/ws/inbox/",
  );
  return { ...server, stop, nudges: () => nudges };
}

describe("the inbox socket", () => {
  it("reads only the server's nudge", () => {
    expect(isInboxChanged('{"type":"inbox_changed"}')).toBe(true);
    expect(isInboxChanged('{"type":"inbox_changed","count":3}')).toBe(false);
    expect(isInboxChanged('{"type":"snapshot"}')).toBe(false);
    expect(isInboxChanged("[]")).toBe(false);
    expect(isInboxChanged("not json")).toBe(false);
  });

  it("reads the inbox again on each nudge, asks again when lost, and reconnects", () => {
    const { sockets, clock, nudges } = follow();
    sockets[0]?.deliver({ type: "inbox_changed" });
    sockets[0]?.deliver({ type: "inbox_changed" });
    expect(nudges()).toBe(2);
    sockets[0]?.deliver("garbage");
    expect(sockets[0]?.sent).toEqual(['{"type":"resync"}']);
    sockets[0]?.drop();
    clock.fire();
    sockets[1]?.deliver({ type: "inbox_changed" });
    expect(nudges()).toBe(3);
  });

  it("stops when refused or stopped", () => {
    const refused = follow();
    refused.sockets[0]?.drop(4401);
    expect(refused.clock.timers.size).toBe(0);

    const stopped = follow();
    stopped.stop();
    expect(stopped.sockets[0]?.closedWith).toBe(1000);
    expect(stopped.sockets).toHaveLength(1);
  });
});
