/**
 * What a page outside the editor hears of a pipeline's review (the review page): the
 * pipeline's websocket, `/ws/pipelines/<id>/`, of which it reads team review's messages
 * into a review store, and the connection with who this user is there into a session
 * store: the socket follows the user's access while open (`accounts/sockets.py`), so a
 * role changed by an owner arrives as `you` and `accessChanged`, and a removal as a
 * refusal. A snapshot after a reconnect marks the store's threads to be read again
 * (messages may have been missed meanwhile); a message it cannot read asks for a fresh
 * snapshot, as the editor does.
 */

import { parseServerMessage, resyncRequest, encodeClientMessage } from "../api/messages";
import {
  openWebSocket,
  ReconnectingSocket,
  socketUrl,
  type Clock,
  type SocketLike,
} from "../api/socket";
import type { StoreApi } from "../store/hooks";
import { createReviewStore, type ReviewStore } from "../store/reviews";
import { createSessionStore, type SessionState } from "../store/session";

export class ReviewFeed {
  readonly store: StoreApi<ReviewStore>;
  /** The connection: open or refused and why, this user's role there. */
  readonly session: StoreApi<SessionState> = createSessionStore();
  private readonly socket: ReconnectingSocket;
  private snapshots = 0;

  constructor(
    readonly pipelineId: number,
    open: (url: string) => SocketLike = openWebSocket,
    clock: Clock = window,
    url: () => string | Promise<string> = () => socketUrl(`pipelines/${pipelineId}`),
  ) {
    this.store = createReviewStore();
    this.socket = new ReconnectingSocket({
      url,
      what: "pipeline",
      purpose: "follow its review",
      resyncRequest: encodeClientMessage(resyncRequest()),
      onMessage: (text) => {
        this.receive(text);
      },
      onRefused: (detail) => {
        this.session.setState({ status: "refused", detail });
      },
      onReconnecting: (detail) => {
        this.session.setState({ status: "reconnecting", detail });
      },
      open,
      clock,
    });
  }

  connect(): void {
    this.socket.connect();
  }

  close(): void {
    this.socket.close();
  }

  private receive(text: string): void {
    const parsed = parseServerMessage(text);
    if (!parsed.ok) {
      this.socket.resync();
      return;
    }
    if (parsed.kind === "review") {
      this.store.getState().receive(parsed.message);
      return;
    }
    if (parsed.message.type === "access_changed") {
      this.session.setState({ you: parsed.message.you, accessChanged: parsed.message });
      return;
    }
    if (parsed.message.type === "snapshot") {
      this.socket.synced();
      this.session.setState({ status: "open", detail: null, you: parsed.message.you });
      this.snapshots += 1;
      if (this.snapshots > 1) {
        this.store.getState().invalidate();
      }
    }
  }
}
