import { describe, expect, it } from "vitest";

import { RETRY_DELAYS_MS } from "../api/socket";
import { runDetail, snapshot, update } from "../test-support/runs";
import { FakeClock, FakeSocket } from "../test-support/sockets";
import { RunWatcher } from "./runSocket";

function watcher() {
  const sockets: FakeSocket[] = [];
  const clock = new FakeClock();
  const watch = new RunWatcher(
    1,
    () => {
      const socket = new FakeSocket();
      sockets.push(socket);
      return socket;
    },
    clock,
    () => "ws://test/ws/runs/1/",
  );
  watch.connect();
  return { watch, sockets, clock, state: () => watch.store.getState() };
}

describe("following a run", () => {
  it("shows the snapshot, then each update", () => {
    const { sockets, state } = watcher();
    sockets[0]?.deliver(snapshot(runDetail({ seq: 2 })));
    sockets[0]?.deliver(update(3, { run: { status: "RUNNING" } }));
    expect(state()).toMatchObject({ connection: "open", seq: 3 });
    expect(state().info?.status).toBe("RUNNING");
  });

  it("asks for a snapshot after a gap, and after a message it cannot read", () => {
    const { sockets, state } = watcher();
    const socket = sockets[0];
    socket?.deliver(snapshot(runDetail({ seq: 2 })));
    socket?.deliver(update(5));
    socket?.deliver(update(6));
    expect(socket?.sent).toEqual(['{"type":"resync"}']);
    socket?.deliver(snapshot(runDetail({ seq: 6 })));
    socket?.deliver("{not json");
    expect(socket?.sent).toHaveLength(2);
    expect(state().problem).toContain("not JSON");
  });

  it("reconnects with growing delays and starts over from the new snapshot", () => {
    const { sockets, clock, state } = watcher();
    sockets[0]?.deliver(snapshot(runDetail({ seq: 1, status: "RUNNING" })));
    sockets[0]?.drop();
    expect(state().connection).toBe("reconnecting");
    expect(state().info?.status).toBe("RUNNING");
    expect(clock.fire()).toEqual([RETRY_DELAYS_MS[0]]);
    sockets[1]?.drop();
    expect(clock.fire()).toEqual([RETRY_DELAYS_MS[1]]);
    expect(sockets).toHaveLength(3);
    sockets[2]?.deliver(snapshot(runDetail({ seq: 9, status: "FINISHED" })));
    expect(state()).toMatchObject({ connection: "open", seq: 9 });
    // A snapshot resets the delays; an ended run is not followed again.
    sockets[2]?.drop();
    expect(clock.timers.size).toBe(0);
  });

  it("ignores a socket it has replaced", () => {
    const { sockets, clock, state } = watcher();
    sockets[0]?.deliver(snapshot(runDetail({ seq: 1 })));
    sockets[0]?.drop();
    clock.fire();
    sockets[0]?.deliver(update(2, { run: { status: "FAILED" } }));
    expect(state().seq).toBe(1);
  });

  it.each([
    [4401, "You are signed out. Sign in again to follow this run."],
    [4403, "The server does not accept your sign-in from this page's address"],
    [4404, "This run does not exist, or you are not a member of its workspace (any more)."],
  ])("says why the server closed it with %i, even while it was open", (code, text) => {
    const { sockets, clock, state } = watcher();
    sockets[0]?.deliver(snapshot(runDetail({ seq: 1, status: "RUNNING" })));
    sockets[0]?.drop(code);
    expect(state().connection).toBe("refused");
    expect(state().detail).toContain(text);
    expect(clock.timers.size).toBe(0);
  });

  it("stops when refused, and when closed", () => {
    const refused = watcher();
    refused.sockets[0]?.drop(4404);
    expect(refused.state().connection).toBe("refused");
    expect(refused.clock.timers.size).toBe(0);

    const closed = watcher();
    closed.watch.close();
    expect(closed.sockets[0]?.closedWith).toBe(1000);
    closed.sockets[0]?.drop();
    expect(closed.clock.timers.size).toBe(0);
  });

  it("takes a newer REST answer", () => {
    const { watch, sockets, state } = watcher();
    sockets[0]?.deliver(snapshot(runDetail({ seq: 1 })));
    watch.seed(runDetail({ seq: 4, status: "CANCELING" }));
    expect(state().info?.status).toBe("CANCELING");
    watch.seed(runDetail({ seq: 2, status: "RUNNING" }));
    expect(state().info?.status).toBe("CANCELING");
  });
});
