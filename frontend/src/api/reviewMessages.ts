/**
 * Team review's messages on the co-editing socket (docs/COEDITING.md, "Team review";
 * `backend/reviews/events.py`): new threads, replies, edits, deletions, resolutions,
 * review requests and verdicts. Their types are generated (`ReviewServerMessage`);
 * `readReviewMessage` checks a received one field by field before anything uses it, as
 * `messages.ts` does the co-editing ones.
 */

import { getOwn, type JsonObject, type JsonValue } from "../graph/json";
import type * as Wire from "./generated/wire";
import { REVIEW_SERVER_MESSAGE_TYPES, ROLE_VALUES } from "./generated/wire";
import {
  ANCHOR_KINDS,
  REVIEW_STATES,
  VERDICT_KINDS,
  type AcknowledgedState,
  type Anchor,
  type CommentEntry,
  type CommentThread,
  type ReviewRequest,
  type ReviewState,
  type Revocation,
  type SavepointRef,
  type Reviewer,
  type UserRef,
  type Verdict,
} from "./reviews";
import { boolean, fail, integer, items, nullableString, object, readUser, string } from "./read";

export type ReviewMessage = Wire.ReviewServerMessage;
export type ReviewMessageType = ReviewMessage["type"];
export const REVIEW_MESSAGE_TYPES: readonly ReviewMessageType[] = REVIEW_SERVER_MESSAGE_TYPES;

export function isReviewMessageType(value: unknown): value is ReviewMessageType {
  return REVIEW_MESSAGE_TYPES.some((type) => type === value);
}

function oneOf<T extends string>(value: unknown, path: string, known: readonly T[]): T {
  return known.some((option) => option === value)
    ? (value as T)
    : fail(path, `must be one of ${known.join(", ")}`);
}

function nullable<T>(
  value: unknown,
  path: string,
  read: (item: unknown, at: string) => T,
): T | null {
  return value === null || value === undefined ? null : read(value, path);
}

const HEX_ID = /^[0-9a-f]{32}$/;

function hexId(value: unknown, path: string): string {
  const text = string(value, path);
  return HEX_ID.test(text) ? text : fail(path, "must be 32 lower-case hex digits");
}

function edgeKey(value: unknown, path: string): readonly [number, number, number, number] {
  const [source, target, typeNumber, k, ...rest] = items(value, path, integer);
  if (source === undefined || target === undefined || typeNumber === undefined) {
    return fail(path, "must be [source, target, typeNumber, k]");
  }
  if (k === undefined || rest.length > 0) {
    return fail(path, "must be [source, target, typeNumber, k]");
  }
  return [source, target, typeNumber, k];
}

/** A version number or `working`. */
function versionAt(value: unknown, path: string): number | "working" {
  return value === "working" ? value : integer(value, path);
}

function reader(raw: JsonObject): (key: string) => JsonValue | undefined {
  return (key) => getOwn(raw, key);
}

function at(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

export function readAnchor(value: unknown, path: string): Anchor {
  const field = reader(object(value, path));
  return {
    kind: oneOf(field("kind"), at(path, "kind"), ANCHOR_KINDS),
    node: nullable(field("node"), at(path, "node"), integer),
    edge: nullable(field("edge"), at(path, "edge"), edgeKey),
    vertex: nullable(field("vertex"), at(path, "vertex"), hexId),
    operatorId: nullable(field("operatorId"), at(path, "operatorId"), hexId),
    sourceOperatorId: nullable(field("sourceOperatorId"), at(path, "sourceOperatorId"), hexId),
    targetOperatorId: nullable(field("targetOperatorId"), at(path, "targetOperatorId"), hexId),
    label: string(field("label"), at(path, "label")),
  };
}

function nullableUser(value: unknown, path: string): UserRef | null {
  return nullable(value, path, readUser);
}

export function readCommentEntry(value: unknown, path: string): CommentEntry {
  const field = reader(object(value, path));
  return {
    id: integer(field("id"), at(path, "id")),
    author: nullableUser(field("author"), at(path, "author")),
    body: string(field("body"), at(path, "body")),
    mentions: items(field("mentions"), at(path, "mentions"), readUser),
    createdAt: string(field("createdAt"), at(path, "createdAt")),
    editedAt: nullableString(field("editedAt"), at(path, "editedAt")),
    deleted: boolean(field("deleted"), at(path, "deleted")),
  };
}

export function readCommentThread(value: unknown, path: string): CommentThread {
  const field = reader(object(value, path));
  return {
    id: integer(field("id"), at(path, "id")),
    pipeline: integer(field("pipeline"), at(path, "pipeline")),
    version: nullable(field("version"), at(path, "version"), integer),
    revision: integer(field("revision"), at(path, "revision")),
    target: readAnchor(field("target"), at(path, "target")),
    status: oneOf(field("status"), at(path, "status"), ["open", "resolved"] as const),
    resolvedBy: nullableUser(field("resolvedBy"), at(path, "resolvedBy")),
    resolvedAt: nullableString(field("resolvedAt"), at(path, "resolvedAt")),
    createdBy: nullableUser(field("createdBy"), at(path, "createdBy")),
    createdAt: string(field("createdAt"), at(path, "createdAt")),
    at: versionAt(field("at"), at(path, "at")),
    outdated: boolean(field("outdated"), at(path, "outdated")),
    outdatedCauses: items(field("outdatedCauses"), at(path, "outdatedCauses"), string),
    comments: items(field("comments"), at(path, "comments"), readCommentEntry),
  };
}

function readSavepointRef(value: unknown, path: string): SavepointRef {
  const field = reader(object(value, path));
  return {
    id: integer(field("id"), at(path, "id")),
    label: string(field("label"), at(path, "label")),
  };
}

export function readVerdict(value: unknown, path: string): Verdict {
  const field = reader(object(value, path));
  return {
    id: integer(field("id"), at(path, "id")),
    request: integer(field("request"), at(path, "request")),
    reviewer: nullableUser(field("reviewer"), at(path, "reviewer")),
    verdict: oneOf(field("verdict"), at(path, "verdict"), VERDICT_KINDS),
    summary: string(field("summary"), at(path, "summary")),
    acknowledged: items(field("acknowledged"), at(path, "acknowledged"), hexId),
    acknowledgedState: items(
      field("acknowledgedState"),
      at(path, "acknowledgedState"),
      readAcknowledgedState,
    ),
    reference: nullable(field("reference"), at(path, "reference"), integer),
    savepoint: nullable(field("savepoint"), at(path, "savepoint"), readSavepointRef),
    role: oneOf(field("role"), at(path, "role"), ROLE_VALUES),
    countsWhenGiven: boolean(field("countsWhenGiven"), at(path, "countsWhenGiven")),
    counts: boolean(field("counts"), at(path, "counts")),
    revocation: nullable(field("revocation"), at(path, "revocation"), readRevocation),
    revocable: boolean(field("revocable"), at(path, "revocable")),
    createdAt: string(field("createdAt"), at(path, "createdAt")),
  };
}

function readAcknowledgedState(value: unknown, path: string): AcknowledgedState {
  const field = reader(object(value, path));
  return {
    operatorId: hexId(field("operatorId"), at(path, "operatorId")),
    name: string(field("name"), at(path, "name")),
    stateBytes: nullable(field("stateBytes"), at(path, "stateBytes"), integer),
  };
}

function readRevocation(value: unknown, path: string): Revocation {
  const field = reader(object(value, path));
  return {
    by: nullableUser(field("by"), at(path, "by")),
    reason: string(field("reason"), at(path, "reason")),
    at: string(field("at"), at(path, "at")),
  };
}

function readReviewer(value: unknown, path: string): Reviewer {
  const field = reader(object(value, path));
  return {
    user: readUser(field("user"), at(path, "user")),
    role: nullable(field("role"), at(path, "role"), (role, where) =>
      oneOf(role, where, ROLE_VALUES),
    ),
    latest: nullable(field("latest"), at(path, "latest"), readVerdict),
  };
}

export function readReviewRequest(value: unknown, path: string): ReviewRequest {
  const field = reader(object(value, path));
  return {
    id: integer(field("id"), at(path, "id")),
    version: integer(field("version"), at(path, "version")),
    requestedBy: nullableUser(field("requestedBy"), at(path, "requestedBy")),
    message: string(field("message"), at(path, "message")),
    createdAt: string(field("createdAt"), at(path, "createdAt")),
    superseded: boolean(field("superseded"), at(path, "superseded")),
    reviewers: items(field("reviewers"), at(path, "reviewers"), readReviewer),
  };
}

function reviewState(value: unknown, path: string): ReviewState {
  return oneOf(value, path, REVIEW_STATES);
}

/** A message of team review, checked; throws `InvalidData` saying where it is wrong. */
export function readReviewMessage(raw: JsonObject, type: ReviewMessageType): ReviewMessage {
  const field = reader(raw);
  switch (type) {
    case "comment_thread_created":
      return { type, thread: readCommentThread(field("thread"), "thread") };
    case "comment_added":
    case "comment_edited":
    case "comment_deleted":
      return {
        type,
        thread: integer(field("thread"), "thread"),
        comment: readCommentEntry(field("comment"), "comment"),
      };
    case "comment_thread_resolved":
    case "comment_thread_reopened":
      return {
        type,
        thread: integer(field("thread"), "thread"),
        user: readUser(field("user"), "user"),
        at: string(field("at"), "at"),
      };
    case "review_requested":
      return {
        type,
        version: integer(field("version"), "version"),
        request: readReviewRequest(field("request"), "request"),
        state: reviewState(field("state"), "state"),
      };
    case "review_verdict":
    case "approval_revoked":
      return {
        type,
        version: integer(field("version"), "version"),
        verdict: readVerdict(field("verdict"), "verdict"),
        state: reviewState(field("state"), "state"),
      };
  }
}
