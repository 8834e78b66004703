/**
 * What a page outside the editor hears of a pipeline's review (the review page): the
 * pipeline's websocket, `/ws/pipelines/<id>/`, of which it reads team review's messages
 * only, into a review store. A snapshot after a reconnect marks the store's threads to
 * be read again (messages may have been missed meanwhile); a message it cannot read
 * asks for a fresh snapshot, as the editor does.
 */

import { storedToken } from "../api/http";
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

export class ReviewFeed {
  readonly store: StoreApi<ReviewStore>;
  private readonly socket: ReconnectingSocket;
  private snapshots = 0;
  /** Why the connection is down or refused, in words; null while it works. */
  problem: string | null = null;

  constructor(
    readonly pipelineId: number,
    open: (url: string) => SocketLike = openWebSocket,
    clock: Clock = window,
    url: () => string = () => socketUrl(`pipelines/${pipelineId}`, storedToken()),
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
        this.problem = detail;
      },
      onReconnecting: (detail) => {
        this.problem = detail;
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
    if (parsed.message.type === "snapshot") {
      this.socket.synced();
      this.problem = null;
      this.snapshots += 1;
      if (this.snapshots > 1) {
        this.store.getState().invalidate();
      }
    }
  }
}
