import { describe, expect, it } from "vitest";

import { fakeServer } from "../test-support/sockets";
import { ApiError } from "./http";
import { RETRY_DELAYS_MS, ReconnectingSocket, type ReconnectingSocketOptions } from "./socket";

function connected(options: Partial<ReconnectingSocketOptions> = {}) {
  const server = fakeServer();
  const events: string[] = [];
  let url = 0;
  const socket = new ReconnectingSocket({
    url: () => `ws://test/ws/things/1/?attempt=${++url}`,
    what: "thing",
    purpose: "look at it",
    resyncRequest: '{"type":"resync"}',
    onMessage: (text) => events.push(`message ${text}`),
    onRefused: (detail) => events.push(`refused ${detail}`),
    onReconnecting: (detail) => events.push(`reconnecting ${detail}`),
    open: server.open,
    clock: server.clock,
    ...options,
  });
  socket.connect();
  return { socket, events, ...server };
}

describe("the reconnecting socket", () => {
  it("hands over the text messages of the connection open now", () => {
    const { sockets, events } = connected();
    sockets[0]?.deliver("hello");
    sockets[0]?.onmessage?.({ data: new ArrayBuffer(2) });
    expect(events).toEqual(["message hello"]);
  });

  it("opens the connection again with growing delays, from the shortest once synced", () => {
    const { socket, sockets, clock, events } = connected();
    sockets[0]?.drop();
    expect(events).toEqual(["reconnecting The connection to the server was lost; reconnecting…"]);
    expect(clock.fire()).toEqual([RETRY_DELAYS_MS[0]]);
    sockets[1]?.drop();
    expect(clock.fire()).toEqual([RETRY_DELAYS_MS[1]]);
    for (let i = 2; i < RETRY_DELAYS_MS.length + 2; i += 1) {
      sockets[i]?.drop();
      clock.fire();
    }
    sockets.at(-1)?.drop();
    expect(clock.fire()).toEqual([RETRY_DELAYS_MS.at(-1)]);
    socket.synced();
    sockets.at(-1)?.drop();
    expect(clock.fire()).toEqual([RETRY_DELAYS_MS[0]]);
    // Each connection asks for its URL again.
    expect(sockets.map((item) => item.url).slice(0, 2)).toEqual([
      "ws://test/ws/things/1/?attempt=1",
      "ws://test/ws/things/1/?attempt=2",
    ]);
  });

  it("ignores a connection it has replaced", () => {
    const { sockets, clock, events } = connected();
    sockets[0]?.drop();
    clock.fire();
    sockets[0]?.deliver("late");
    sockets[0]?.drop();
    expect(events).toHaveLength(1);
    expect(clock.timers.size).toBe(0);
  });

  it("stays closed when the server refuses it, even after it was open", () => {
    const { sockets, clock, events } = connected();
    sockets[0]?.deliver("hello");
    sockets[0]?.drop(4404);
    expect(events.at(-1)).toBe(
      "refused This thing does not exist, or you are not a member of its workspace (any more).",
    );
    expect(clock.timers.size).toBe(0);
  });

  it("stays closed when closed, and when a drop is not worth a retry", () => {
    const closed = connected();
    closed.sockets[0]?.drop();
    closed.socket.close();
    expect(closed.clock.timers.size).toBe(0);
    expect(closed.sockets).toHaveLength(1);

    const open = connected();
    open.socket.close();
    expect(open.sockets[0]?.closedWith).toBe(1000);
    open.sockets[0]?.drop();
    expect(open.events).toEqual([]);

    const ended = connected({ reconnects: () => false });
    ended.sockets[0]?.drop();
    expect(ended.events).toEqual([]);
    expect(ended.clock.timers.size).toBe(0);
  });

  it("sends, and asks for a snapshot, only while the connection is open", () => {
    const { socket, sockets, clock } = connected();
    socket.send("one");
    socket.resync();
    expect(sockets[0]?.sent).toEqual(["one", '{"type":"resync"}']);
    sockets[0]?.drop();
    socket.send("lost");
    socket.resync();
    clock.fire();
    expect(sockets[0]?.sent).toHaveLength(2);
    expect(sockets[1]?.sent).toEqual([]);
  });

  it("waits for a ticketed URL, and opens only the latest connect's", async () => {
    let resolve: (url: string) => void = () => undefined;
    const { socket, sockets } = connected({
      url: () =>
        new Promise<string>((done) => {
          resolve = done;
        }),
    });
    expect(sockets).toHaveLength(0);
    resolve("ws://test/ws/things/1/?ticket=a");
    await Promise.resolve();
    expect(sockets.map((s) => s.url)).toEqual(["ws://test/ws/things/1/?ticket=a"]);
    socket.close();
    socket.connect();
    socket.close();
    resolve("ws://test/ws/things/1/?ticket=b");
    await Promise.resolve();
    expect(sockets).toHaveLength(1);
  });

  it("ends when the ticket is refused as signed out, and retries when it cannot be asked", async () => {
    const refused = connected({ url: () => Promise.reject(new ApiError(401, "x", "no")) });
    await Promise.resolve();
    await Promise.resolve();
    expect(refused.events).toEqual(["refused You are signed out. Sign in again to look at it."]);
    expect(refused.clock.timers.size).toBe(0);

    const unreachable = connected({
      url: () => Promise.reject(new ApiError(0, "network", "down")),
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(unreachable.events).toEqual([
      "reconnecting The connection to the server was lost; reconnecting…",
    ]);
    expect(unreachable.clock.timers.size).toBe(1);
  });
});
