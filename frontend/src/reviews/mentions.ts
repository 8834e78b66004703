/**
 * `@username` mentions in a comment's text, found as the server finds them
 * (`backend/reviews/mentions.py`): `@` and a username (letters, digits and `.+-_`), not
 * preceded by a character a username has, so `ann@example.com` mentions nobody; a
 * trailing full stop ends the sentence, not the name. Names compare without regard to
 * letter case.
 */

import type { UserRef } from "../api/reviews";

const MENTION = /(?<![\p{L}\p{N}_.@+-])@([\p{L}\p{N}_.+-]+)/gu;

export type BodyPart =
  | { readonly kind: "text"; readonly text: string }
  /** `member`: the workspace member it names (null: the server named nobody by it). */
  | { readonly kind: "mention"; readonly text: string; readonly member: UserRef | null };

/** The names `text` mentions, first mention first, each once. */
export function mentionedNames(text: string): string[] {
  const names = new Map<string, string>();
  for (const match of text.matchAll(MENTION)) {
    const name = (match[1] ?? "").replace(/\.+$/, "");
    if (name !== "" && !names.has(name.toLowerCase())) {
      names.set(name.toLowerCase(), name);
    }
  }
  return [...names.values()];
}

/** `body` cut into text and mentions, each mention with the member the server matched. */
export function bodyParts(body: string, mentions: readonly UserRef[]): BodyPart[] {
  const members = new Map(mentions.map((user) => [user.username.toLowerCase(), user]));
  const parts: BodyPart[] = [];
  let from = 0;
  const push = (text: string): void => {
    if (text === "") {
      return;
    }
    const last = parts.at(-1);
    if (last?.kind === "text") {
      parts[parts.length - 1] = { kind: "text", text: last.text + text };
    } else {
      parts.push({ kind: "text", text });
    }
  };
  for (const match of body.matchAll(MENTION)) {
    const name = (match[1] ?? "").replace(/\.+$/, "");
    if (name === "") {
      continue;
    }
    const start = match.index;
    push(body.slice(from, start));
    const text = `@${name}`;
    parts.push({ kind: "mention", text, member: members.get(name.toLowerCase()) ?? null });
    from = start + text.length;
  }
  push(body.slice(from));
  return parts;
}
