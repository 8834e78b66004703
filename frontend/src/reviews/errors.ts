/**
 * What a refused comment, request or verdict says, line by line: the server's message,
 * then what it says of each field that the message does not already say (an unknown
 * `@mention`, each operator an approval must acknowledge).
 */

import { ApiError } from "../api/http";

export function errorLines(error: unknown): string[] {
  if (!(error instanceof ApiError)) {
    return [String(error)];
  }
  const lines = [error.message];
  for (const messages of Object.values(error.fields)) {
    for (const message of messages) {
      if (!lines.some((line) => line.includes(message))) {
        lines.push(message);
      }
    }
  }
  return lines;
}
