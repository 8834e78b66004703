/**
 * One open pipeline: the websocket to `/ws/pipelines/<id>/`, the document store
 * it feeds, the other users' presence, and the review store that team review's
 * messages (threads, replies, resolutions, review requests, verdicts) go to.
 *
 * The connection (`api/socket.ts`) is opened again after a drop, and the
 * server answers every join with a snapshot, so nothing is replayed from here.
 * While it is down the editor is read-only: an edit made then could not reach
 * the server in order.
 */

import {
  editRequest,
  encodeClientMessage,
  presenceRequest,
  resyncRequest,
  type ClientMessage,
  type PresenceEntry,
  type Selection,
} from "../api/messages";
import { parseServerMessage } from "../api/messages";
import {
  openWebSocket,
  ReconnectingSocket,
  socketUrl,
  type Clock,
  type SocketLike,
} from "../api/socket";
import { createDocumentStore, type DocumentStore } from "../store/document";
import type { StoreApi } from "../store/hooks";
import { createReviewStore, type ReviewStore } from "../store/reviews";
import { createSessionStore, type SessionState } from "../store/session";

export class EditorSession {
  readonly document: StoreApi<DocumentStore>;
  readonly state: StoreApi<SessionState>;
  readonly reviews: StoreApi<ReviewStore>;
  private readonly socket: ReconnectingSocket;
  private snapshots = 0;

  constructor(
    readonly pipelineId: number,
    open: (url: string) => SocketLike = openWebSocket,
    clock: Clock = window,
    url: () => string | Promise<string> = () => socketUrl(`pipelines/${pipelineId}`),
  ) {
    this.document = createDocumentStore({
      send: (edit, baseRevision, opId) => {
        this.send(editRequest(opId, baseRevision, edit));
      },
      resync: () => {
        this.socket.resync();
      },
    });
    this.state = createSessionStore();
    this.reviews = createReviewStore();
    this.socket = new ReconnectingSocket({
      url,
      what: "pipeline",
      purpose: "edit",
      resyncRequest: encodeClientMessage(resyncRequest()),
      onMessage: (text) => {
        this.receive(text);
      },
      onRefused: (detail) => {
        this.state.setState({ status: "refused", detail, others: {} });
      },
      onReconnecting: (detail) => {
        this.state.setState({ status: "reconnecting", detail, others: {} });
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

  /** Tell the others what this user has selected. */
  sendPresence(selection: Selection): void {
    this.send(presenceRequest(selection, null));
  }

  private send(message: ClientMessage): void {
    this.socket.send(encodeClientMessage(message));
  }

  private receive(text: string): void {
    const parsed = parseServerMessage(text);
    if (!parsed.ok) {
      // A message this client cannot read: start over from a snapshot.
      this.socket.resync();
      return;
    }
    if (parsed.kind === "review") {
      this.reviews.getState().receive(parsed.message);
      return;
    }
    const message = parsed.message;
    switch (message.type) {
      case "snapshot": {
        this.socket.synced();
        this.snapshots += 1;
        if (this.snapshots > 1) {
          // Review messages may have been missed while the connection was down.
          this.reviews.getState().invalidate();
        }
        const others: Record<string, PresenceEntry> = {};
        for (const entry of message.presence) {
          if (entry.clientId !== message.you.clientId) {
            others[entry.clientId] = entry;
          }
        }
        this.state.setState({ status: "open", detail: null, you: message.you, others });
        break;
      }
      case "presence": {
        const { you, others } = this.state.getState();
        if (message.client.clientId !== you?.clientId) {
          this.state.setState({ others: { ...others, [message.client.clientId]: message.client } });
        }
        return;
      }
      case "presence_left": {
        const others = { ...this.state.getState().others };
        // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- keyed by clientId
        delete others[message.clientId];
        this.state.setState({ others });
        return;
      }
      case "version_saved":
        this.state.setState({ versionSaved: message });
        return;
      case "run_started":
        this.state.setState({ runStarted: message });
        return;
      case "access_changed":
        // The editor turns read-only (or editable) with `you.role`.
        this.state.setState({ you: message.you, accessChanged: message });
        return;
      case "error":
        this.state.setState({ serverError: message.error.message });
        return;
      default:
        break;
    }
    this.document.getState().receive(message);
  }
}
