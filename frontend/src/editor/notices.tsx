import { useCallback, useState } from "react";

/** How long a notice stays up; one that offers a way somewhere, longer. */
const NOTICE_MS = 6000;
const ACTION_NOTICE_MS = 15000;
/** Notices shown at once; older ones make room. */
const MAX_NOTICES = 4;

export type NoticeKind = "info" | "error";

/** A way from the notice to where it is about ("Open the review"). */
export interface NoticeAction {
  readonly label: string;
  readonly run: () => void;
}

export type Notify = (text: string, kind?: NoticeKind, action?: NoticeAction) => void;

interface Notice {
  readonly id: number;
  readonly text: string;
  readonly kind: NoticeKind;
  readonly action: NoticeAction | null;
}

let noticeSerial = 0;

/** Short messages at the bottom of the editor that go away by themselves. */
export function useNotices(): { notices: readonly Notice[]; notify: Notify } {
  const [notices, setNotices] = useState<readonly Notice[]>([]);
  const notify = useCallback<Notify>((text, kind = "error", action) => {
    noticeSerial += 1;
    const id = noticeSerial;
    const notice = { id, text, kind, action: action ?? null };
    setNotices((current) => [...current.slice(1 - MAX_NOTICES), notice]);
    window.setTimeout(
      () => {
        setNotices((current) => current.filter((n) => n.id !== id));
      },
      action === undefined ? NOTICE_MS : ACTION_NOTICE_MS,
    );
  }, []);
  return { notices, notify };
}

export function Notices({ notices }: { readonly notices: readonly Notice[] }) {
  return (
    <div className="notices" aria-live="polite">
      {notices.map((n) => (
        <div
          key={n.id}
          className={`notice-toast notice-toast--${n.kind}`}
          role={n.kind === "error" ? "alert" : "status"}
        >
          {n.text}
          {n.action !== null && (
            <button
              type="button"
              className="link-button notice-toast__action"
              onClick={n.action.run}
              data-testid="notice-action"
            >
              {n.action.label}
            </button>
          )}
        </div>
      ))}
    </div>
  );
}
