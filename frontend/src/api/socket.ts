/**
 * The connection under every websocket: the co-editing one
 * (`/ws/pipelines/<id>/`, `editor/session.ts`, and the review page's
 * `reviews/reviewFeed.ts`), the run monitor's (`/ws/runs/<id>/`,
 * `runs/runSocket.ts`) and the inbox's (`/ws/inbox/`, `pages/inboxSocket.ts`);
 * they differ in their messages only.
 *
 * The server answers every join with a snapshot, so nothing is replayed from
 * here: a dropped connection is simply opened again after a growing delay
 * (`RETRY_DELAYS_MS`), which starts over from the shortest once the owner has
 * had its snapshot (`synced`). A close code by which the server refuses the
 * socket (`closeCodes.ts`) ends it for good, as `close` does. When the owner
 * has missed something (a gap in what arrived, a message it cannot read) it
 * asks the server for a fresh snapshot (`resync`).
 */

import { CLOSE_UNAUTHENTICATED, refusalText } from "./closeCodes";
import { ApiError, request } from "./http";

export const RETRY_DELAYS_MS = [250, 500, 1000, 2000, 4000] as const;

/** What the socket needs of a WebSocket (a real one, or a test's). */
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
/** A close this side asked for. */
const NORMAL_CLOSURE = 1000;
/** A connection lost without a close frame (as a browser reports it). */
const ABNORMAL_CLOSURE = 1006;

/**
 * The URL of the socket at `/ws/<path>/` of this page's server, signed in with a single-use
 * ticket asked for just before (`POST /api/auth/socket-ticket/`), so the URL, which servers
 * log, holds no lasting secret. `deltas=2`: this page applies plan deltas with `rename` and
 * `xor` (`graph/liveplan.ts`); the server sends pages that do not say so a snapshot instead
 * of such a delta. A refused ticket (signed out) rejects with the `ApiError` of its 401.
 */
export async function socketUrl(path: string): Promise<string> {
  const { ticket } = await request<{ readonly ticket: string }>("POST", "auth/socket-ticket/");
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${window.location.host}/ws/${path}/?deltas=2&ticket=${encodeURIComponent(ticket)}`;
}

/** A browser WebSocket behind the socket's narrow interface. */
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

export interface ReconnectingSocketOptions {
  /** The URL to open, asked again on every reconnect (a ticket is good for one socket). */
  readonly url: () => string | Promise<string>;
  /** What is refused, and what for, in the words of `refusalText` ("pipeline", "edit"). */
  readonly what: string;
  readonly purpose: string;
  /** The protocol's `resync` request, encoded. */
  readonly resyncRequest: string;
  /** A text message from the server, on the connection open now. */
  readonly onMessage: (text: string) => void;
  /** The server refused the socket, at once or later: it is not opened again. */
  readonly onRefused: (detail: string) => void;
  /** The connection dropped and is opened again after a delay. */
  readonly onReconnecting: (detail: string) => void;
  /** Whether a dropped connection is worth opening again; without it, always. */
  readonly reconnects?: () => boolean;
  readonly open?: (url: string) => SocketLike;
  readonly clock?: Clock;
}

export class ReconnectingSocket {
  private socket: SocketLike | null = null;
  private retries = 0;
  private retryTimer: number | null = null;
  private closed = false;
  /** Counts connects, so a URL that arrives after a newer connect (or close) is dropped. */
  private attempt = 0;

  constructor(private readonly options: ReconnectingSocketOptions) {}

  connect(): void {
    this.closed = false;
    this.attempt += 1;
    const attempt = this.attempt;
    let url: string | Promise<string>;
    try {
      url = this.options.url();
    } catch (error) {
      url = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (typeof url === "string") {
      this.open(url);
      return;
    }
    url.then(
      (resolved) => {
        if (!this.closed && attempt === this.attempt) {
          this.open(resolved);
        }
      },
      (error: unknown) => {
        if (!this.closed && attempt === this.attempt) {
          // Signed out: the server's refusal of a socket; anything else: a lost connection.
          const signedOut = error instanceof ApiError && error.status === 401;
          this.dropped(signedOut ? CLOSE_UNAUTHENTICATED : ABNORMAL_CLOSURE);
        }
      },
    );
  }

  private open(url: string): void {
    const socket = (this.options.open ?? openWebSocket)(url);
    this.socket = socket;
    socket.onmessage = (event) => {
      if (this.socket === socket && typeof event.data === "string") {
        this.options.onMessage(event.data);
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

  /** Stop: close the connection and open none again. */
  close(): void {
    this.closed = true;
    if (this.retryTimer !== null) {
      this.clock().clearTimeout(this.retryTimer);
      this.retryTimer = null;
    }
    this.socket?.close(NORMAL_CLOSURE);
    this.socket = null;
  }

  /** Send `text` if the connection is open; while it is down, nothing is sent. */
  send(text: string): void {
    if (this.socket?.readyState === OPEN) {
      this.socket.send(text);
    }
  }

  /** Ask the server for a fresh snapshot. */
  resync(): void {
    this.send(this.options.resyncRequest);
  }

  /** The owner has its snapshot: the connection works, so the next drop retries soon. */
  synced(): void {
    this.retries = 0;
  }

  private dropped(code: number): void {
    const refusal = refusalText(code, this.options.what, this.options.purpose);
    if (refusal !== null) {
      this.options.onRefused(refusal);
      return;
    }
    if (this.options.reconnects !== undefined && !this.options.reconnects()) {
      return;
    }
    const delay = RETRY_DELAYS_MS[Math.min(this.retries, RETRY_DELAYS_MS.length - 1)] ?? 4000;
    this.retries += 1;
    this.options.onReconnecting("The connection to the server was lost; reconnecting…");
    this.retryTimer = this.clock().setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, delay);
  }

  private clock(): Clock {
    return this.options.clock ?? window;
  }
}
