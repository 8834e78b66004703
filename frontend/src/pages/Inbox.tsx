import { useCallback, useEffect, useState } from "react";

import { navigate } from "../app/router";
import * as reviews from "../api/reviews";
import { useNow } from "../ui/useNow";
import { errorText, useResource } from "../ui/useResource";
import { timeAgo } from "../versions/history";
import { followInbox } from "./inboxSocket";
import "./home.css";

interface Loaded {
  readonly inbox: reviews.Inbox;
  readonly waiting: readonly reviews.WaitingReview[];
  readonly mentions: readonly reviews.MentionItem[];
}

async function loadInbox(signal: AbortSignal): Promise<Loaded> {
  const [inbox, waiting, mentions] = await Promise.all([
    reviews.getInbox(signal),
    reviews.listWaitingReviews(signal),
    reviews.listMentions({ unread: true }, signal),
  ]);
  return { inbox, waiting: waiting.items, mentions: mentions.items };
}

/**
 * What waits for the signed-in user over all their workspaces: reviews they were asked
 * for and have not answered, and mentions they have not read, read again whenever the
 * server says it changed (`inboxSocket.ts`). A review opens its page; a mention opens its
 * thread in the editor and is marked read.
 */
export function Inbox() {
  const [refreshes, setRefreshes] = useState(0);
  const { data, error } = useResource(loadInbox, String(refreshes), 100);
  const [problem, setProblem] = useState<string | null>(null);
  const now = useNow();
  useEffect(
    () =>
      followInbox(() => {
        setRefreshes((n) => n + 1);
      }),
    [],
  );
  const openMention = useCallback(async (mention: reviews.MentionItem) => {
    try {
      await reviews.markMentionsRead([mention.id]);
      navigate({ page: "editor", pipeline: mention.pipeline, thread: mention.thread });
    } catch (caught) {
      setProblem(errorText(caught));
    }
  }, []);
  const markAll = async (): Promise<void> => {
    try {
      await reviews.markAllMentionsRead();
      setRefreshes((n) => n + 1);
    } catch (caught) {
      setProblem(errorText(caught));
    }
  };

  const waiting = data?.inbox.reviewsWaiting ?? null;
  const unread = data?.inbox.unreadMentions ?? null;
  return (
    <section className="inbox" data-testid="inbox" aria-label="Your inbox">
      <div className="inbox__column">
        <h2>
          Reviews waiting for you{" "}
          <span className="inbox__count" data-testid="inbox-reviews-count">
            {waiting ?? "…"}
          </span>
        </h2>
        {data !== null && data.waiting.length === 0 && (
          <p className="muted">Nobody waits for your review.</p>
        )}
        <ul className="inbox__list">
          {data?.waiting.map((item) => (
            <li key={item.request} data-testid={`inbox-review-${item.request}`}>
              <button
                type="button"
                className="link-button"
                onClick={() => {
                  navigate({ page: "review", pipeline: item.pipeline, version: item.version });
                }}
              >
                {item.pipelineName}, version {item.version}
              </button>{" "}
              <span className="muted">
                asked by {item.requestedBy?.username ?? "a former member"} ·{" "}
                {timeAgo(item.createdAt, now)}
              </span>
              {item.message !== "" && <q className="inbox__excerpt">{item.message}</q>}
            </li>
          ))}
        </ul>
      </div>
      <div className="inbox__column">
        <h2>
          Unread mentions{" "}
          <span className="inbox__count" data-testid="inbox-mentions-count">
            {unread ?? "…"}
          </span>
          {unread !== null && unread > 0 && (
            <button
              type="button"
              className="link-button inbox__all"
              onClick={() => void markAll()}
              data-testid="inbox-mentions-read-all"
            >
              mark all read
            </button>
          )}
        </h2>
        {data !== null && data.mentions.length === 0 && (
          <p className="muted">No mentions you have not read.</p>
        )}
        <ul className="inbox__list">
          {data?.mentions.map((item) => (
            <li key={item.id} data-testid={`inbox-mention-${item.id}`}>
              <button
                type="button"
                className="link-button"
                onClick={() => void openMention(item)}
                title="Open the thread; the mention is marked read"
              >
                {item.author?.username ?? "A former member"} in {item.pipelineName}
              </button>{" "}
              <span className="muted">{timeAgo(item.createdAt, now)}</span>
              <q className="inbox__excerpt">{item.excerpt}</q>
            </li>
          ))}
        </ul>
      </div>
      {(error ?? problem) !== null && (
        <p className="form-error" role="alert">
          {error ?? problem}
        </p>
      )}
    </section>
  );
}
