import { useCallback, useState } from "react";

import { navigate } from "../app/router";
import * as reviews from "../api/reviews";
import { useNow } from "../ui/useNow";
import { errorText, useResource } from "../ui/useResource";
import { timeAgo } from "../versions/history";
import { activityKey, activityRoute, activityText } from "./activity";
import "./reviews.css";

const PAGE = 30;

interface Page {
  /** The reload it answers. */
  readonly key: string;
  readonly items: readonly reviews.ActivityItem[];
  readonly next: string | null;
}

/**
 * What happened to a pipeline, newest first: versions saved, reviews asked and answered,
 * comments, runs started and ended, with who and when; a page at a time. It is read again
 * from the top whenever `refreshKey` changes (something new was heard).
 */
export function ActivityPanel(props: { readonly pipelineId: number; readonly refreshKey: string }) {
  const { pipelineId, refreshKey } = props;
  const key = `${pipelineId}#${refreshKey}`;
  const load = useCallback(
    async (signal: AbortSignal): Promise<Page> => {
      const page = await reviews.listActivity(pipelineId, null, PAGE, signal);
      return { key, items: page.items, next: page.next };
    },
    [pipelineId, key],
  );
  const first = useResource(load, key, 300);
  const [more, setMore] = useState<Page | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const now = useNow();
  const shown = more !== null && more.key === first.data?.key ? more : first.data;

  const loadMore = async (): Promise<void> => {
    if (shown?.next == null) {
      return;
    }
    setLoading(true);
    try {
      const page = await reviews.listActivity(pipelineId, shown.next, PAGE);
      setMore({ key: shown.key, items: [...shown.items, ...page.items], next: page.next });
      setProblem(null);
    } catch (caught) {
      setProblem(errorText(caught));
    } finally {
      setLoading(false);
    }
  };

  const error = first.error ?? problem;
  return (
    <div className="activity" data-testid="activity-panel">
      <h3>Activity</h3>
      {error !== null && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {shown === null ? (
        error === null && <p className="muted">Loading…</p>
      ) : shown.items.length === 0 ? (
        <p className="muted">Nothing happened yet.</p>
      ) : (
        <ol className="activity__list">
          {shown.items.map((item) => {
            const route = activityRoute(pipelineId, item);
            const text = activityText(item);
            return (
              <li
                key={activityKey(item)}
                className={`activity__item activity__item--${item.kind}`}
                data-testid={`activity-${activityKey(item)}`}
              >
                {route === null ? (
                  <span>{text}</span>
                ) : (
                  <button
                    type="button"
                    className="link-button activity__link"
                    onClick={() => {
                      navigate(route);
                    }}
                  >
                    {text}
                  </button>
                )}
                <time className="muted" dateTime={item.at} title={item.at}>
                  {timeAgo(item.at, now)}
                </time>
              </li>
            );
          })}
        </ol>
      )}
      {shown?.next != null && (
        <button
          type="button"
          className="button button--small"
          disabled={loading}
          onClick={() => void loadMore()}
          data-testid="activity-more"
        >
          Load more
        </button>
      )}
    </div>
  );
}
