import { useCallback, useEffect, useState } from "react";

import * as api from "../api/resources";
import type { Edit } from "../graph/edits";
import { useResource } from "../ui/useResource";
import { RescaleRestore } from "./RescaleRestore";
import { RescaleResult } from "./RescaleResult";
import {
  clampedOffset,
  currentParallelism,
  parseParallelism,
  rescaleQuery,
  type RescaleTarget,
} from "./rescaleModel";
import "./plan.css";

/** After a change (a keystroke, an edit of the working copy), wait this long for more. */
const REFRESH_DELAY_MS = 400;

const JOB: RescaleTarget = { kind: "job" };

function targetKey(target: RescaleTarget): string {
  return target.kind === "job" ? "job" : target.id;
}

/**
 * The rescale simulator: restart a version (or the working copy) from a savepoint with a
 * new parallelism for one JobVertex or the whole job, and see per subtask its key groups
 * before and after, what moves, what stays, slots, and whether the state restores.
 */
export function RescaleView(props: {
  readonly pipelineId: number;
  /** The working copy's revision: a new one asks again. */
  readonly revision: number;
  /** The working copy's default parallelism, the first value asked about. */
  readonly defaultParallelism: number;
  /** The edits of "set it explicitly" may be applied (to the working copy). */
  readonly canEdit: boolean;
  readonly onPin: (edits: readonly Edit[]) => void;
}) {
  const { pipelineId, revision, defaultParallelism, canEdit, onPin } = props;
  const [version, setVersion] = useState<number | null>(null);
  const [target, setTarget] = useState<RescaleTarget>(JOB);
  const [text, setText] = useState(String(defaultParallelism));
  const [parallelism, setParallelism] = useState(defaultParallelism);
  /** The first vertex described (the whole job is judged, a page of it described). */
  const [offset, setOffset] = useState(0);
  const parsed = parseParallelism(text);

  const loadVersions = useCallback(
    (signal: AbortSignal) => api.listVersions(pipelineId, signal),
    [pipelineId],
  );
  const versions = useResource(loadVersions, String(pipelineId));
  const load = useCallback(
    (signal: AbortSignal) =>
      api.getRescale(pipelineId, rescaleQuery(target, parallelism, version, offset), signal),
    [pipelineId, target, parallelism, version, offset],
  );
  const of = version === null ? `working@${revision}` : `v${version}`;
  const { data, error, loading } = useResource(
    load,
    `${pipelineId}:${of}:${targetKey(target)}:${parallelism}:${offset}`,
    REFRESH_DELAY_MS,
  );
  const choices = data?.choices ?? [];
  // An edit that removed vertices may leave the page past the last one: go to the last.
  const clamped = data === null ? null : clampedOffset(data.page);
  useEffect(() => {
    if (clamped !== null) {
      setOffset(clamped);
    }
  }, [clamped]);

  const enter = (value: string): void => {
    setText(value);
    const next = parseParallelism(value);
    if (next.ok) {
      setParallelism(next.value);
    }
  };
  const choose = (next: RescaleTarget): void => {
    setTarget(next);
    setOffset(0);
    const base = data?.defaultParallelism.before ?? defaultParallelism;
    enter(String(currentParallelism(next, choices, base)));
  };

  return (
    <div className="plan-view rescale-view" data-testid="rescale-view" aria-busy={loading}>
      <header className="plan-view__header">
        <h2>Rescale</h2>
        <span className="muted">
          Restart from a savepoint with another parallelism: key groups per subtask, as Flink
          assigns them.
        </span>
        {loading && <span className="muted">updating…</span>}
      </header>
      <form
        className="rescale-controls"
        onSubmit={(event) => {
          event.preventDefault();
        }}
      >
        <label>
          Of{" "}
          <select
            value={version ?? ""}
            data-testid="rescale-version"
            onChange={(event) => {
              setVersion(event.target.value === "" ? null : Number(event.target.value));
              setTarget(JOB);
              setOffset(0);
            }}
          >
            <option value="">the working copy</option>
            {(versions.data ?? []).map((saved) => (
              <option key={saved.number} value={saved.number}>
                version {saved.number}
              </option>
            ))}
          </select>
        </label>
        <label>
          rescale{" "}
          <select
            value={targetKey(target)}
            data-testid="rescale-target"
            onChange={(event) => {
              const value = event.target.value;
              choose(value === "job" ? JOB : { kind: "vertex", id: value });
            }}
          >
            <option value="job">the whole job (its default parallelism)</option>
            {choices.map((choice) => (
              <option key={choice.id} value={choice.id}>
                {choice.name} ({choice.parallelism})
              </option>
            ))}
          </select>
        </label>
        <label>
          to{" "}
          <input
            className="rescale-controls__parallelism"
            inputMode="numeric"
            value={text}
            aria-invalid={!parsed.ok}
            data-testid="rescale-parallelism"
            onChange={(event) => {
              enter(event.target.value);
            }}
          />{" "}
          subtasks
        </label>
        {!parsed.ok && <span className="form-error">{parsed.message}</span>}
      </form>
      <RescaleRestore
        pipelineId={pipelineId}
        version={version}
        revision={revision}
        target={target}
        parallelism={parallelism}
      />
      {error !== null && (
        <p className="form-error" data-testid="rescale-error">
          {error}
        </p>
      )}
      {error === null && data === null && <p className="muted">Simulating…</p>}
      {error === null && data !== null && (
        <RescaleResult
          simulation={data}
          canPin={canEdit && data.version === null}
          onPin={onPin}
          onPage={setOffset}
        />
      )}
    </div>
  );
}
