/**
 * Why the server closed a websocket, as `accounts/sockets.py` codes it. The server
 * accepts every socket and closes the ones it refuses, so these arrive as close codes,
 * whether at once or later (signed out elsewhere, removed from the workspace).
 */

export const CLOSE_UNAUTHENTICATED = 4401;
export const CLOSE_FORBIDDEN_ORIGIN = 4403;
export const CLOSE_NOT_FOUND = 4404;

/**
 * What to tell the user when the server refused a socket for `what` ("pipeline",
 * "run"), to `purpose` ("edit", "follow this run"); null for a close that is no
 * refusal (a dropped connection, worth reconnecting).
 */
export function refusalText(code: number, what: string, purpose: string): string | null {
  switch (code) {
    case CLOSE_UNAUTHENTICATED:
      return `You are signed out. Sign in again to ${purpose}.`;
    case CLOSE_FORBIDDEN_ORIGIN:
      return "The server does not accept your sign-in from this page's address; open the studio at its own address.";
    case CLOSE_NOT_FOUND:
      return `This ${what} does not exist, or you are not a member of its workspace (any more).`;
    default:
      return null;
  }
}
