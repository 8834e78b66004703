/**
 * The inbox's nudges: `/ws/inbox/` says when what waits for the signed-in user may have
 * changed (a review asked of them, a mention, their workspaces), and once each time it
 * connects, so nothing missed while it was down stays unread. It carries no content: the
 * home page reads the inbox again over REST on each nudge.
 */

import { getOwn, isJsonObject } from "../graph/json";
import type { InboxChanged, InboxClientMessage } from "../api/generated/wire";
import {
  openWebSocket,
  ReconnectingSocket,
  socketUrl,
  type Clock,
  type SocketLike,
} from "../api/socket";

const RESYNC: InboxClientMessage = { type: "resync" };
const CHANGED: InboxChanged["type"] = "inbox_changed";

/** Whether `text` is the server's nudge; anything else is a message this page cannot read. */
export function isInboxChanged(text: string): boolean {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return false;
  }
  return (
    isJsonObject(message) &&
    getOwn(message, "type") === CHANGED &&
    Object.keys(message).length === 1
  );
}

/**
 * Calls `onChanged` on every nudge until the returned function stops it. A message it
 * cannot read asks for a nudge again; a refused socket (signed out) ends it, and the
 * inbox stays as last read.
 */
export function followInbox(
  onChanged: () => void,
  open: (url: string) => SocketLike = openWebSocket,
  clock: Clock = window,
  url: () => string | Promise<string> = () => socketUrl("inbox"),
): () => void {
  const socket: ReconnectingSocket = new ReconnectingSocket({
    url,
    what: "inbox",
    purpose: "see what waits for you",
    resyncRequest: JSON.stringify(RESYNC),
    onMessage: (text) => {
      if (isInboxChanged(text)) {
        socket.synced();
        onChanged();
      } else {
        socket.resync();
      }
    },
    onRefused: () => undefined,
    onReconnecting: () => undefined,
    open,
    clock,
  });
  socket.connect();
  return () => {
    socket.close();
  };
}
