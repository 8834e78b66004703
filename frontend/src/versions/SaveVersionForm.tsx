import { useState } from "react";

import * as api from "../api/resources";
import { errorText } from "../ui/useResource";

/** Saves the server's working copy as the next version, with a message. */
export function SaveVersionForm(props: {
  readonly pipelineId: number;
  readonly canEdit: boolean;
  readonly onSaved: (version: api.VersionSummary) => void;
}) {
  const { pipelineId, canEdit, onSaved } = props;
  const [message, setMessage] = useState("");
  const [saving, setSaving] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);

  const save = async (event: React.SyntheticEvent): Promise<void> => {
    event.preventDefault();
    setSaving(true);
    try {
      const version = await api.saveVersion(pipelineId, message.trim());
      setMessage("");
      setOutcome({
        ok: true,
        text: `Saved version ${version.number} (revision ${version.revision}).`,
      });
      onSaved(version);
    } catch (caught) {
      setOutcome({ ok: false, text: errorText(caught) });
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className="save-version" onSubmit={save}>
      <h3>Save a version</h3>
      <textarea
        value={message}
        rows={2}
        maxLength={2000}
        placeholder={canEdit ? "What changed, and why?" : "Viewers cannot save versions."}
        disabled={!canEdit || saving}
        onChange={(event) => {
          setMessage(event.target.value);
        }}
        onKeyDown={(event) => {
          if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
            event.currentTarget.form?.requestSubmit();
          }
        }}
        aria-label="Version message"
        data-testid="version-message"
      />
      <div className="save-version__actions">
        <span className="muted">Saves the working copy as the server has it.</span>
        <button
          type="submit"
          className="button button--primary"
          disabled={!canEdit || saving}
          data-testid="version-save"
        >
          {saving ? "Saving…" : "Save version"}
        </button>
      </div>
      {outcome !== null && (
        <p
          className={outcome.ok ? "notice" : "form-error"}
          role={outcome.ok ? "status" : "alert"}
          data-testid="version-saved"
        >
          {outcome.text}
        </p>
      )}
    </form>
  );
}
