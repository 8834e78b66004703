import { useState } from "react";

/** How many hex characters an id shows before the rest is on hover. */
export const SHORT_ID_LENGTH = 8;

export function shortId(id: string): string {
  return id.slice(0, SHORT_ID_LENGTH);
}

/**
 * A Flink id (OperatorID, JobVertexID, ...): the short form, the full id on hover,
 * and a button that copies the full id.
 */
export function CopyId({ id, label }: { readonly id: string; readonly label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async (event: React.MouseEvent): Promise<void> => {
    event.stopPropagation();
    await navigator.clipboard.writeText(id);
    setCopied(true);
    window.setTimeout(() => {
      setCopied(false);
    }, 1200);
  };
  return (
    <span className="copy-id" title={label === undefined ? id : `${label}: ${id}`}>
      <code>{shortId(id)}</code>
      <button
        type="button"
        className="copy-id__button"
        aria-label={`Copy ${label ?? "id"} ${id}`}
        onClick={copy}
      >
        {copied ? "copied" : "copy"}
      </button>
    </span>
  );
}
