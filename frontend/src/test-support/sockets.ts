/** A websocket and a clock for the tests of what talks to the server over websockets. */

import type { Clock, SocketLike } from "../api/socket";

export class FakeSocket implements SocketLike {
  readyState = 1;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number }) => void) | null = null;
  readonly sent: string[] = [];
  closedWith: number | null = null;

  constructor(readonly url = "") {}

  send(text: string): void {
    this.sent.push(text);
  }

  close(code?: number): void {
    this.closedWith = code ?? 1000;
  }

  /** A message from the server: a string as it is, anything else as JSON. */
  deliver(message: unknown): void {
    this.onmessage?.({ data: typeof message === "string" ? message : JSON.stringify(message) });
  }

  drop(code = 1006): void {
    this.readyState = 3;
    this.onclose?.({ code });
  }
}

export class FakeClock implements Clock {
  readonly timers = new Map<number, { callback: () => void; ms: number }>();
  private next = 1;

  setTimeout(callback: () => void, ms: number): number {
    const handle = this.next++;
    this.timers.set(handle, { callback, ms });
    return handle;
  }

  clearTimeout(handle: number): void {
    this.timers.delete(handle);
  }

  /** Run every pending timer; the delays they were set with. */
  fire(): number[] {
    const pending = [...this.timers.entries()];
    this.timers.clear();
    for (const [, timer] of pending) {
      timer.callback();
    }
    return pending.map(([, timer]) => timer.ms);
  }
}

/** Opens fake sockets and keeps them in order of opening. */
export function fakeServer(): {
  readonly sockets: FakeSocket[];
  readonly open: (url: string) => FakeSocket;
  readonly clock: FakeClock;
} {
  const sockets: FakeSocket[] = [];
  return {
    sockets,
    open: (url) => {
      const socket = new FakeSocket(url);
      sockets.push(socket);
      return socket;
    },
    clock: new FakeClock(),
  };
}
