/**
 * The state of the editor's connection to a pipeline (`editor/session.ts`
 * keeps it): whether it is open, who this connection is and who else is
 * there, and the last events about the pipeline everyone is told of.
 */

import { createStore, type StoreApi } from "zustand/vanilla";

import type {
  AccessChangedMessage,
  PresenceEntry,
  RunStartedMessage,
  VersionSavedMessage,
} from "../api/messages";

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

export function createSessionStore(): StoreApi<SessionState> {
  return createStore<SessionState>()(() => ({
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
