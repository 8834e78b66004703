import type { Verdict } from "./diffModel";

const ICONS = { ok: "✓", warning: "!", lost: "✕", unknown: "?" } as const;

/** Whether a savepoint of the older version restores into the newer one, first thing on the page. */
export function VerdictBanner({ verdict }: { readonly verdict: Verdict }) {
  return (
    <div
      className={`verdict verdict--${verdict.tone}`}
      role="status"
      data-testid="verdict-banner"
      data-tone={verdict.tone}
    >
      <span className="verdict__icon" aria-hidden="true">
        {ICONS[verdict.tone]}
      </span>
      <div>
        <strong className="verdict__title">{verdict.title}</strong>
        {verdict.details.map((detail) => (
          <p key={detail} className="verdict__detail">
            {detail}
          </p>
        ))}
      </div>
    </div>
  );
}
