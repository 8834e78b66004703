import { useCallback, useState } from "react";

/** How long a notice stays up. */
const NOTICE_MS = 6000;
/** Notices shown at once; older ones make room. */
const MAX_NOTICES = 4;

export type NoticeKind = "info" | "error";
export type Notify = (text: string, kind?: NoticeKind) => void;

interface Notice {
  readonly id: number;
  readonly text: string;
  readonly kind: NoticeKind;
}

let noticeSerial = 0;

/** Short messages at the bottom of the editor that go away by themselves. */
export function useNotices(): { notices: readonly Notice[]; notify: Notify } {
  const [notices, setNotices] = useState<readonly Notice[]>([]);
  const notify = useCallback<Notify>((text, kind = "error") => {
    noticeSerial += 1;
    const id = noticeSerial;
    setNotices((current) => [...current.slice(1 - MAX_NOTICES), { id, text, kind }]);
    window.setTimeout(() => {
      setNotices((current) => current.filter((n) => n.id !== id));
    }, NOTICE_MS);
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
        </div>
      ))}
    </div>
  );
}
