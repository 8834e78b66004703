/**
 * The websocket that follows one run, `/ws/runs/<id>/`, feeding its store.
 *
 * The connection (`api/socket.ts`) is opened again after a drop, and the
 * server answers every join with a snapshot. A gap in the sequence numbers, or
 * a message that cannot be read, asks for a fresh snapshot (`resync`). Once
 * the run has ended nothing more can change: a drop then is not retried.
 */

import { encodeRunRequest, parseRunMessage } from "../api/runMessages";
import { isActive, type RunDetail } from "../api/runs";
import {
  openWebSocket,
  ReconnectingSocket,
  socketUrl,
  type Clock,
  type SocketLike,
} from "../api/socket";
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

export class RunWatcher {
  readonly store: RunStore;
  private readonly socket: ReconnectingSocket;

  constructor(
    readonly runId: number,
    open: (url: string) => SocketLike = openWebSocket,
    clock: Clock = window,
    url: () => string | Promise<string> = () => socketUrl(`runs/${runId}`),
  ) {
    this.store = createRunStore();
    this.socket = new ReconnectingSocket({
      url,
      what: "run",
      purpose: "follow this run",
      resyncRequest: encodeRunRequest({ type: "resync" }),
      onMessage: (text) => {
        this.receive(text);
      },
      onRefused: (detail) => {
        this.store.setState(connectionRefused(this.store.getState(), detail));
      },
      onReconnecting: (detail) => {
        this.store.setState(connectionLost(this.store.getState(), detail));
      },
      // Nothing more will happen to an ended run: what is shown is final.
      reconnects: () => {
        const { info } = this.store.getState();
        return info === null || isActive(info.status);
      },
      open,
      clock,
    });
  }

  connect(): void {
    this.socket.connect();
  }

  /** Stop following the run (the page closed). */
  close(): void {
    this.socket.close();
  }

  /** A REST answer about the run (e.g. the cancel's): shown if newer than the socket's. */
  seed(run: RunDetail): void {
    this.store.setState(receiveDetail(this.store.getState(), run));
  }

  private receive(text: string): void {
    const parsed = parseRunMessage(text);
    const state = this.store.getState();
    const received: Received = parsed.ok
      ? receive(state, parsed.message)
      : receiveUnreadable(state, parsed.error);
    if (parsed.ok && parsed.message.type === "snapshot") {
      this.socket.synced();
    }
    if (received.state !== state) {
      this.store.setState(received.state, true);
    }
    if (received.resync) {
      this.socket.resync();
    }
  }
}
