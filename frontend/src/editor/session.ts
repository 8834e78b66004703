/**
 * One open pipeline: the websocket to `/ws/pipelines/<id>/`, the document store
 * it feeds, and the other users' presence.
 *
 * The connection reconnects by itself (the server answers every join with a
 * snapshot, so nothing is replayed from here). While it is down the editor is
 * read-only: an edit made then could not reach the server in order.
 */

import { createStore, type StoreApi } from "zustand/vanilla";

import { refusalText } from "../api/closeCodes";
import { storedToken } from "../api/http";
import {
  type AccessChangedMessage,
  editRequest,
  encodeClientMessage,
  presenceRequest,
  resyncRequest,
  type ClientMessage,
  type PresenceEntry,
  type RunStartedMessage,
  type Selection,
  type VersionSavedMessage,
} from "../api/messages";
import { parseServerMessage } from "../api/messages";
import { createDocumentStore, type DocumentStore } from "../store/document";

export type ConnectionStatus =
  | "connecting"
  | "open"
  | "reconnecting"
  /** The server refused us, at once or later (`api/closeCodes`). */
  | "refused";

export interface SessionState {
  readonly status: ConnectionStatus;
  /** Why the connection is down or was refused, in words. */
  readonly detail: string | null;
  /** This connection as the server sees it (user, role), from the snapshot. */
  readonly you: PresenceEntry | null;
  /** Everyone else on the pipeline, by clientId. */
  readonly others: Readonly<Record<string, PresenceEntry>>;
  /** The last message-level error the server sent (a malformed request). */
  readonly serverError: string | null;
  /** The last version anyone saved while this session was open. */
  readonly versionSaved: VersionSavedMessage | null;
  /** The last run anyone started while this session was open. */
  readonly runStarted: RunStartedMessage | null;
  /** The last change of this user's role while this session was open. */
  readonly accessChanged: AccessChangedMessage | null;
}

const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 4000];

export function socketUrl(pipelineId: number, token: string | null): string {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  const query = token === null ? "" : `?token=${encodeURIComponent(token)}`;
  return `${scheme}://${window.location.host}/ws/pipelines/${pipelineId}/${query}`;
}

export class EditorSession {
  readonly document: StoreApi<DocumentStore>;
  readonly state: StoreApi<SessionState>;
  private socket: WebSocket | null = null;
  private retries = 0;
  private retryTimer: number | null = null;
  private closed = false;

  constructor(readonly pipelineId: number) {
    this.document = createDocumentStore({
      send: (edit, baseRevision, opId) => {
        this.send(editRequest(opId, baseRevision, edit));
      },
      resync: () => {
        this.send(resyncRequest());
      },
    });
    this.state = createStore<SessionState>()(() => ({
      status: "connecting",
      detail: null,
      you: null,
      others: {},
      serverError: null,
      versionSaved: null,
      runStarted: null,
      accessChanged: null,
    }));
  }

  connect(): void {
    this.closed = false;
    const socket = new WebSocket(socketUrl(this.pipelineId, storedToken()));
    this.socket = socket;
    socket.onmessage = (event: MessageEvent<string>) => {
      this.receive(event.data);
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) {
        return;
      }
      this.socket = null;
      if (this.closed) {
        return;
      }
      const refusal = refusalText(event.code, "pipeline", "edit");
      if (refusal !== null) {
        this.state.setState({ status: "refused", detail: refusal, others: {} });
        return;
      }
      const delay = RETRY_DELAYS_MS[Math.min(this.retries, RETRY_DELAYS_MS.length - 1)] ?? 4000;
      this.retries += 1;
      this.state.setState({
        status: "reconnecting",
        detail: "The connection to the server was lost; reconnecting…",
        others: {},
      });
      this.retryTimer = window.setTimeout(() => {
        this.connect();
      }, delay);
    };
  }

  close(): void {
    this.closed = true;
    if (this.retryTimer !== null) {
      window.clearTimeout(this.retryTimer);
    }
    this.socket?.close(1000);
    this.socket = null;
  }

  /** Tell the others what this user has selected. */
  sendPresence(selection: Selection): void {
    this.send(presenceRequest(selection, null));
  }

  private send(message: ClientMessage): void {
    if (this.socket?.readyState === WebSocket.OPEN) {
      this.socket.send(encodeClientMessage(message));
    }
  }

  private receive(text: string): void {
    const parsed = parseServerMessage(text);
    if (!parsed.ok) {
      // A message this client cannot read: start over from a snapshot.
      this.send(resyncRequest());
      return;
    }
    const message = parsed.message;
    switch (message.type) {
      case "snapshot": {
        this.retries = 0;
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
