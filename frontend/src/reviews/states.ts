/**
 * A version's review in words: its state, its verdicts, who is asked and who answered,
 * what a review request or verdict heard over the socket tells each user, and what a
 * change of their own access while the review is open means for them.
 */

import type {
  ReviewRequest,
  ReviewState,
  StateCheck,
  UserRef,
  VerdictKind,
  VersionReview,
} from "../api/reviews";
import type { Role } from "../api/resources";
import type { ReviewNewsMessage } from "../store/reviews";

const STATE_WORDS: Readonly<Record<ReviewState, string>> = {
  draft: "draft",
  in_review: "in review",
  changes_requested: "changes requested",
  approved: "approved",
  superseded: "superseded",
};

const STATE_HELP: Readonly<Record<ReviewState, string>> = {
  draft: "No review was requested.",
  in_review: "A review was requested; not enough approvals yet.",
  changes_requested: "An editor or owner asked for changes.",
  approved: "Enough editors or owners approved it.",
  superseded: "A newer version was saved before it was approved.",
};

const VERDICT_WORDS: Readonly<Record<VerdictKind, string>> = {
  approve: "approved",
  request_changes: "requested changes to",
  comment: "commented on",
};

const VERDICT_LABELS: Readonly<Record<VerdictKind, string>> = {
  approve: "Approve",
  request_changes: "Request changes",
  comment: "Comment",
};

/** "in review". */
export function stateText(state: ReviewState): string {
  return STATE_WORDS[state];
}

/** A sentence saying what the state means. */
export function stateHelp(state: ReviewState): string {
  return STATE_HELP[state];
}

/** "Approve", "Request changes", "Comment". */
export function verdictLabel(verdict: VerdictKind): string {
  return VERDICT_LABELS[verdict];
}

/** "approved", "requested changes to", "commented on". */
export function verdictWords(verdict: VerdictKind): string {
  return VERDICT_WORDS[verdict];
}

/** "1 of 2 approvals". */
export function approvalsText(approvals: number, required: number): string {
  if (required === 0) {
    return "no approval required";
  }
  return `${approvals} of ${required} approval${required === 1 ? "" : "s"}`;
}

/** The request of `review` that `user` is asked in and may still answer: the newest. */
export function requestToAnswer(review: VersionReview, user: UserRef | null): ReviewRequest | null {
  if (user === null || review.version !== review.latestVersion) {
    return null;
  }
  const asked = review.requests.filter(
    (request) =>
      !request.superseded && request.reviewers.some((reviewer) => reviewer.user.id === user.id),
  );
  return asked.at(-1) ?? null;
}

function names(users: readonly UserRef[], you: number | null): string {
  const named = users.map((user) => (user.id === you ? "you" : user.username));
  if (named.length <= 1) {
    return named.join("");
  }
  return `${named.slice(0, -1).join(", ")} and ${named.at(-1) ?? ""}`;
}

/** What the role an owner just gave the user means on a review page. */
export function accessChangedText(role: Role): string {
  switch (role) {
    case "viewer":
      return "An owner made you a viewer of this workspace: you may still comment and answer a review asked of you, but your verdicts are recorded without counting, and you can no longer ask for reviews.";
    case "editor":
      return "An owner made you an editor of this workspace: your verdicts count, and you may ask for reviews.";
    case "owner":
      return "An owner made you an owner of this workspace: your verdicts count, and you may ask for reviews and revoke approvals.";
  }
}

/** Why a review page that was open stopped: the server refused its socket (`detail`). */
export const LOST_ACCESS =
  "You no longer have access to this review: you were removed from the pipeline's workspace, or signed out.";

/**
 * What a review request or verdict someone else made tells the user `you` (null: say
 * nothing: they made it themselves). Whether it asks them to act is `forYou`.
 */
export function newsText(
  message: ReviewNewsMessage,
  you: number | null,
): { readonly text: string; readonly forYou: boolean } | null {
  if (message.type === "review_requested") {
    const by = message.request.requestedBy;
    if (by !== null && by.id === you) {
      return null;
    }
    const reviewers = message.request.reviewers.map((reviewer) => reviewer.user);
    const forYou = reviewers.some((user) => user.id === you);
    const note = message.request.message === "" ? "" : `: “${message.request.message}”`;
    return {
      text: `${by?.username ?? "Someone"} asked ${names(reviewers, you)} to review version ${message.version}${note}`,
      forYou,
    };
  }
  if (message.type === "approval_revoked") {
    const revocation = message.verdict.revocation;
    const by = revocation?.by ?? null;
    if (by !== null && by.id === you) {
      return null;
    }
    return {
      text: `${by?.username ?? "Someone"} revoked ${message.verdict.reviewer?.username ?? "a former member"}'s approval of version ${message.version}: “${revocation?.reason ?? ""}” (now ${stateText(message.state)})`,
      forYou: message.verdict.reviewer !== null && message.verdict.reviewer.id === you,
    };
  }
  const reviewer = message.verdict.reviewer;
  if (reviewer !== null && reviewer.id === you) {
    return null;
  }
  const summary = message.verdict.summary === "" ? "" : `: “${message.verdict.summary}”`;
  return {
    text: `${reviewer?.username ?? "Someone"} ${verdictWords(message.verdict.verdict)} version ${message.version}${summary} (now ${stateText(message.state)})`,
    forYou: false,
  };
}

/** What a state check compared with, in words; null when there was nothing to compare with. */
export function stateBasisWords(
  check: StateCheck,
): { readonly comparedWith: string; readonly restoresAll: string } | null {
  if (check.savepoint !== null) {
    const label = `the current savepoint "${check.savepoint.label}"`;
    return {
      comparedWith: `Started from ${label}`,
      restoresAll: `This version restores every operator's state of ${label}.`,
    };
  }
  if (check.reference !== null) {
    return {
      comparedWith: `Compared with version ${check.reference}, the last approved one`,
      restoresAll: `A savepoint of version ${check.reference}, the last approved one, restores every operator's state into this version.`,
    };
  }
  return null;
}
