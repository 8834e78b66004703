import type { ReactNode } from "react";

/** Previous / Next around a label saying which items are shown; nothing for one page. */
export function Pager(props: {
  readonly page: number;
  readonly pages: number;
  readonly onPage: (page: number) => void;
  readonly testId?: string;
  readonly children: ReactNode;
}) {
  const { page, pages, onPage, testId, children } = props;
  if (pages <= 1) {
    return null;
  }
  return (
    <div className="pager" data-testid={testId}>
      <button
        type="button"
        className="button button--small"
        disabled={page === 0}
        onClick={() => {
          onPage(page - 1);
        }}
      >
        ← Previous
      </button>
      <span className="muted">{children}</span>
      <button
        type="button"
        className="button button--small"
        disabled={page >= pages - 1}
        onClick={() => {
          onPage(page + 1);
        }}
      >
        Next →
      </button>
    </div>
  );
}
