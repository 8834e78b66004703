import { Fragment } from "react";

import type { UserRef } from "../api/reviews";
import { bodyParts } from "./mentions";

/** A comment's text with its `@mentions` marked (those of members the server matched). */
export function CommentBody({
  body,
  mentions,
}: {
  readonly body: string;
  readonly mentions: readonly UserRef[];
}) {
  return (
    <p className="comment__body">
      {bodyParts(body, mentions).map((part, index) =>
        part.kind === "text" ? (
          <Fragment key={index}>{part.text}</Fragment>
        ) : part.member === null ? (
          <span key={index} className="mention mention--unknown">
            {part.text}
          </span>
        ) : (
          <mark key={index} className="mention" title={`Mentions ${part.member.username}`}>
            {part.text}
          </mark>
        ),
      )}
    </p>
  );
}
