/**
 * The websocket that follows one run, `/ws/runs/<id>/`, feeding its store.
 *
 * The server answers every join with a snapshot, so a dropped connection is
 * simply opened again after a growing delay; nothing is replayed from here.
 * A gap in the sequence numbers, or a message that cannot be read, asks for a
 * fresh snapshot (`resync`). Once the run has ended nothing more can change:
 * a drop then is not retried.
 */

import { refusalText } from "../api/closeCodes";
import { storedToken } from "../api/http";
import { encodeRunRequest, parseRunMessage } from "../api/runMessages";
import { isActive, type RunDetail } from "../api/runs";
import {
  connectionLost,
  connectionRefused,
  createRunStore,
  receive,
  receiveDetail,
  receiveUnreadable,
  type Received,
  type RunStore,
} from "../store/run";

export const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 4000] as const;

/** What the watcher needs of a WebSocket (a real one, or a test's). */
export interface SocketLike {
  readonly readyState: number;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number }) => void) | null;
  send(text: string): void;
  close(code?: number): void;
}

export interface Clock {
  setTimeout(callback: () => void, ms: number): number;
  clearTimeout(handle: number): void;
}

const OPEN = 1;

export function runSocketUrl(runId: number, token: string | null): string {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const query = token === null ? "" : `?token=${encodeURIComponent(token)}`;
  return `${scheme}://${window.location.host}/ws/runs/${runId}/${query}`;
}

/** A browser WebSocket behind the watcher's narrow interface. */
export function openWebSocket(url: string): SocketLike {
  const socket = new WebSocket(url);
  const like: SocketLike = {
    get readyState() {
      return socket.readyState;
    },
    onmessage: null,
    onclose: null,
    send: (text) => {
      socket.send(text);
    },
    close: (code) => {
      socket.close(code);
    },
  };
  socket.onmessage = (event: MessageEvent<unknown>) => {
    like.onmessage?.({ data: event.data });
  };
  socket.onclose = (event) => {
    like.onclose?.({ code: event.code });
  };
  return like;
}

export class RunWatcher {
  readonly store: RunStore;
  private socket: SocketLike | null = null;
  private retries = 0;
  private retryTimer: number | null = null;
  private closed = false;

  constructor(
    readonly runId: number,
    private readonly open: (url: string) => SocketLike = openWebSocket,
    private readonly clock: Clock = window,
    private readonly url: () => string = () => runSocketUrl(runId, storedToken()),
  ) {
    this.store = createRunStore();
  }

  connect(): void {
    this.closed = false;
    const socket = this.open(this.url());
    this.socket = socket;
    socket.onmessage = (event) => {
      if (this.socket === socket && typeof event.data === "string") {
        this.receive(event.data);
      }
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) {
        return;
      }
      this.socket = null;
      if (!this.closed) {
        this.dropped(event.code);
      }
    };
  }

  /** Stop following the run (the page closed). */
  close(): void {
    this.closed = true;
    if (this.retryTimer !== null) {
      this.clock.clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
    this.socket?.close(1000);
    this.socket = null;
  }

  /** A REST answer about the run (e.g. the cancel's): shown if newer than the socket's. */
  seed(run: RunDetail): void {
    this.store.setState(receiveDetail(this.store.getState(), run));
  }

  private dropped(code: number): void {
    const state = this.store.getState();
    const refusal = refusalText(code, "run", "follow this run");
    if (refusal !== null) {
      this.store.setState(connectionRefused(state, refusal));
      return;
    }
    if (state.info !== null && !isActive(state.info.status)) {
      // Nothing more will happen to an ended run: what is shown is final.
      return;
    }
    const delay = RETRY_DELAYS_MS[Math.min(this.retries, RETRY_DELAYS_MS.length - 1)] ?? 4000;
    this.retries += 1;
    this.store.setState(
      connectionLost(state, "The connection to the server was lost; reconnecting…"),
    );
    this.retryTimer = this.clock.setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delay);
  }

  private receive(text: string): void {
    const parsed = parseRunMessage(text);
    const state = this.store.getState();
    const received: Received = parsed.ok
      ? receive(state, parsed.message)
      : receiveUnreadable(state, parsed.error);
    if (parsed.ok && parsed.message.type === "snapshot") {
      this.retries = 0;
    }
    if (received.state !== state) {
      this.store.setState(received.state, true);
    }
    if (received.resync && this.socket?.readyState === OPEN) {
      this.socket.send(encodeRunRequest({ type: "resync" }));
    }
  }
}
