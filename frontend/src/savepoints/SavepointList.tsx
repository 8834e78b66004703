import { useState } from "react";

import {
  deleteSavepoint,
  updateSavepoint,
  type SavepointChange,
  type SavepointSummary,
} from "../api/savepoints";
import { errorLines } from "../reviews/errors";
import { useNow } from "../ui/useNow";
import { savepointFacts } from "./format";

/**
 * The pipeline's savepoints, newest first: pick the one to check against; editors mark one
 * current, relabel or delete (after a confirmation here on the page).
 */
export function SavepointList(props: {
  readonly pipelineId: number;
  readonly savepoints: readonly SavepointSummary[];
  readonly shown: number | null;
  readonly canManage: boolean;
  readonly onPick: (savepoint: number) => void;
  /** After a change or a deletion: the list is read again. */
  readonly onChanged: () => void;
}) {
  const now = useNow();
  return (
    <ul className="savepoint-list" data-testid="savepoint-list">
      {props.savepoints.map((savepoint) => (
        <SavepointItem
          key={savepoint.id}
          pipelineId={props.pipelineId}
          savepoint={savepoint}
          picked={savepoint.id === props.shown}
          canManage={props.canManage}
          now={now}
          onPick={props.onPick}
          onChanged={props.onChanged}
        />
      ))}
    </ul>
  );
}

type Mode = "view" | "rename" | "delete";

function SavepointItem(props: {
  readonly pipelineId: number;
  readonly savepoint: SavepointSummary;
  readonly picked: boolean;
  readonly canManage: boolean;
  readonly now: number;
  readonly onPick: (savepoint: number) => void;
  readonly onChanged: () => void;
}) {
  const { savepoint, pipelineId } = props;
  const [mode, setMode] = useState<Mode>("view");
  const [label, setLabel] = useState(savepoint.label);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string[]>([]);

  const act = async (action: () => Promise<unknown>): Promise<void> => {
    setBusy(true);
    setError([]);
    try {
      await action();
      setMode("view");
      props.onChanged();
    } catch (caught) {
      setError(errorLines(caught));
    } finally {
      setBusy(false);
    }
  };
  const change = (body: SavepointChange): Promise<void> =>
    act(() => updateSavepoint(pipelineId, savepoint.id, body));

  return (
    <li
      className={`savepoint-item${props.picked ? " is-picked" : ""}`}
      data-testid={`savepoint-item-${savepoint.id}`}
    >
      <label className="savepoint-item__pick">
        <input
          type="radio"
          name="savepoint"
          checked={props.picked}
          onChange={() => {
            props.onPick(savepoint.id);
          }}
          data-testid={`savepoint-pick-${savepoint.id}`}
        />
        <span className="savepoint-item__label">{savepoint.label}</span>
        {savepoint.isCurrent && (
          <span className="savepoint-item__current" title="Production restores from it">
            current
          </span>
        )}
      </label>
      <div className="savepoint-item__facts muted">{savepointFacts(savepoint, props.now)}</div>
      {props.canManage && mode === "view" && (
        <div className="row-actions">
          <button
            type="button"
            className="link-button"
            disabled={busy}
            onClick={() => change({ isCurrent: !savepoint.isCurrent })}
            data-testid={`savepoint-current-${savepoint.id}`}
          >
            {savepoint.isCurrent ? "not current" : "make current"}
          </button>
          <button
            type="button"
            className="link-button"
            onClick={() => {
              setLabel(savepoint.label);
              setMode("rename");
            }}
            data-testid={`savepoint-rename-${savepoint.id}`}
          >
            rename
          </button>
          <button
            type="button"
            className="link-button savepoint-item__delete"
            onClick={() => {
              setMode("delete");
            }}
            data-testid={`savepoint-delete-${savepoint.id}`}
          >
            delete
          </button>
        </div>
      )}
      {mode === "rename" && (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            void change({ label });
          }}
        >
          <input
            value={label}
            maxLength={200}
            aria-label="Label"
            onChange={(event) => {
              setLabel(event.target.value);
            }}
            data-testid={`savepoint-label-${savepoint.id}`}
          />
          <button type="submit" className="button button--small" disabled={busy}>
            Save
          </button>
          <button
            type="button"
            className="button button--small"
            onClick={() => {
              setMode("view");
            }}
          >
            Cancel
          </button>
        </form>
      )}
      {mode === "delete" && (
        <div className="savepoint-item__confirm" role="alertdialog">
          <span>Delete “{savepoint.label}”? Its file goes too.</span>
          <button
            type="button"
            className="button button--small button--danger"
            disabled={busy}
            onClick={() => act(() => deleteSavepoint(pipelineId, savepoint.id))}
            data-testid={`savepoint-delete-confirm-${savepoint.id}`}
          >
            Delete
          </button>
          <button
            type="button"
            className="button button--small"
            onClick={() => {
              setMode("view");
            }}
          >
            Keep it
          </button>
        </div>
      )}
      {error.length > 0 && (
        <div className="form-error" role="alert">
          {error.map((line) => (
            <p key={line}>{line}</p>
          ))}
        </div>
      )}
    </li>
  );
}
