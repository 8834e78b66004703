import { useState, type SyntheticEvent } from "react";

import type { VersionSummary } from "../api/resources";
import { uploadSavepoint, type SavepointDetail } from "../api/savepoints";
import { errorLines } from "../reviews/errors";

/**
 * Uploading a savepoint's `_metadata` file (editors): a label, whether production restores
 * from it, and the version that wrote it if known. The server reads the file before it
 * stores it; its refusal shows here as it says it.
 */
export function SavepointUploadForm(props: {
  readonly pipelineId: number;
  readonly versions: readonly VersionSummary[];
  readonly onUploaded: (savepoint: SavepointDetail) => void;
}) {
  const [file, setFile] = useState<File | null>(null);
  const [label, setLabel] = useState("");
  const [current, setCurrent] = useState(true);
  const [writtenBy, setWrittenBy] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string[]>([]);
  // A new input once uploaded, so the chosen file does not linger in it.
  const [inputKey, setInputKey] = useState(0);

  const submit = async (event: SyntheticEvent): Promise<void> => {
    event.preventDefault();
    if (file === null) {
      setError(["Choose the savepoint's _metadata file."]);
      return;
    }
    setBusy(true);
    setError([]);
    try {
      const uploaded = await uploadSavepoint(props.pipelineId, {
        file,
        fileName: file.name,
        label,
        current,
        writtenBy: writtenBy === "" ? null : Number(writtenBy),
      });
      setFile(null);
      setLabel("");
      setWrittenBy("");
      setInputKey((key) => key + 1);
      props.onUploaded(uploaded);
    } catch (caught) {
      setError(errorLines(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="savepoint-upload" onSubmit={submit} data-testid="savepoint-upload">
      <div className="field">
        <label htmlFor="savepoint-file">_metadata file</label>
        <input
          key={inputKey}
          id="savepoint-file"
          type="file"
          onChange={(event) => {
            setFile(event.target.files?.[0] ?? null);
          }}
          data-testid="savepoint-file"
        />
        <span className="field__help">
          From the savepoint&apos;s folder, or a retained checkpoint&apos;s.
        </span>
      </div>
      <div className="field">
        <label htmlFor="savepoint-label">Label</label>
        <input
          id="savepoint-label"
          value={label}
          maxLength={200}
          placeholder="production 2026-11-20"
          onChange={(event) => {
            setLabel(event.target.value);
          }}
          data-testid="savepoint-label"
        />
      </div>
      <div className="field">
        <label htmlFor="savepoint-written-by">Written by</label>
        <select
          id="savepoint-written-by"
          value={writtenBy}
          onChange={(event) => {
            setWrittenBy(event.target.value);
          }}
          data-testid="savepoint-written-by"
        >
          <option value="">not known</option>
          {[...props.versions].reverse().map((version) => (
            <option key={version.number} value={version.number}>
              version {version.number}
              {version.message === "" ? "" : `: ${version.message}`}
            </option>
          ))}
        </select>
        <span className="field__help">
          The version whose job took it: lost state is then explained by what changed since.
        </span>
      </div>
      <div className="field field--check">
        <label>
          <input
            type="checkbox"
            checked={current}
            onChange={(event) => {
              setCurrent(event.target.checked);
            }}
            data-testid="savepoint-current"
          />
          Current: production restores from it (the review&apos;s state-loss gate uses it)
        </label>
      </div>
      {error.length > 0 && (
        <div className="form-error" role="alert" data-testid="savepoint-upload-error">
          {error.map((line) => (
            <p key={line}>{line}</p>
          ))}
        </div>
      )}
      <button
        type="submit"
        className="button button--primary"
        disabled={busy}
        data-testid="savepoint-upload-submit"
      >
        {busy ? "Uploading…" : "Upload"}
      </button>
    </form>
  );
}
