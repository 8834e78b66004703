import { useState } from "react";

import type { JsonValue } from "../graph/json";
import { plural } from "../plan/executionModel";
import { RUNTIME_MODES, type RuntimeMode, type StreamGraphDocument } from "../graph/streamgraph";
import { useCommit, useParallelismCommit } from "./commit";
import { useDocumentStore, useEditor } from "./context";
import { CheckField, CommitField, SelectField } from "./fields";
import type { Notify } from "./notices";
import { stateSummary, unpinnedOperators } from "./pinning";
import { StateIdsDialog, type StateIdsAction } from "./StateIdsDialog";
import { parseDefaultParallelism, parseParallelism } from "./values";

/**
 * With nothing selected: the pipeline's job name, defaults and chaining switches, and what
 * keeps its operators' state restorable (pinning their IDs, or readable uids).
 */
export function PipelineSettings(props: {
  readonly document: StreamGraphDocument;
  readonly onNotice: Notify;
}) {
  const { document } = props;
  const { session, canEdit } = useEditor();
  const plan = useDocumentStore((state) => state.plan);
  const commit = useCommit(props.onNotice);
  const commitParallelism = useParallelismCommit(props.onNotice);
  const config = document.config ?? {};
  const store = session.document.getState;
  const setConfig = (field: string) => (value: JsonValue) => store().setConfigField(field, value);
  const summary = plan?.summary ?? null;
  const unpinned = plan === null ? 0 : unpinnedOperators(document, plan).length;
  const [stateAction, setStateAction] = useState<StateIdsAction | null>(null);
  return (
    <div className="inspector" data-testid="pipeline-settings">
      <h2>Pipeline</h2>
      {summary !== null && (
        <dl className="facts">
          <dt>Job vertices</dt>
          <dd>{summary.vertexCount}</dd>
          <dt>Subtasks</dt>
          <dd>{summary.totalSubtasks ?? "?"}</dd>
          <dt>Slots required</dt>
          <dd data-testid="slots-required">{summary.slotsRequired}</dd>
          {summary.slotSharingGroups.map((group) => (
            <span key={group.index} className="facts__row">
              <dt>Slot group {group.name ?? "(unset)"}</dt>
              <dd>{plural(group.slots, "slot")}</dd>
            </span>
          ))}
        </dl>
      )}
      <>
        <CommitField
          label="Job name"
          value={typeof document.name === "string" ? document.name : ""}
          disabled={!canEdit}
          onCommit={(text) => {
            commit({ ok: true, value: text }, (value) => store().setDocumentField("name", value));
          }}
        />
        <CommitField
          label="Default parallelism"
          value={String(config.defaultParallelism ?? 1)}
          disabled={!canEdit}
          testId="config-default-parallelism"
          parse={parseDefaultParallelism}
          onCommit={(text) => {
            commitParallelism(parseDefaultParallelism(text), (value) => ({
              kind: "set_field",
              element: "config",
              field: "defaultParallelism",
              value,
            }));
          }}
        />
        <CommitField
          label="Max parallelism"
          value={(config.maxParallelism ?? -1) > 0 ? String(config.maxParallelism) : ""}
          placeholder="derived per vertex"
          disabled={!canEdit}
          testId="config-max-parallelism"
          parse={(text) => parseParallelism(text, "Max parallelism")}
          onCommit={(text) => {
            commit(parseParallelism(text, "Max parallelism"), setConfig("maxParallelism"));
          }}
        />
        <SelectField<RuntimeMode>
          label="Runtime mode"
          value={config.runtimeMode ?? "STREAMING"}
          options={RUNTIME_MODES}
          disabled={!canEdit}
          help="BATCH: blocking exchanges, as Flink's batch execution."
          onChange={(value) => {
            commit({ ok: true, value }, setConfig("runtimeMode"));
          }}
        />
        <CheckField
          label="Operator chaining enabled"
          checked={config.chainingEnabled ?? true}
          disabled={!canEdit}
          onChange={(checked) => {
            commit({ ok: true, value: checked }, setConfig("chainingEnabled"));
          }}
        />
        <CheckField
          label="Chain operators with different max parallelism"
          checked={config.chainOperatorsWithDifferentMaxParallelism ?? true}
          disabled={!canEdit}
          onChange={(checked) => {
            commit(
              { ok: true, value: checked },
              setConfig("chainOperatorsWithDifferentMaxParallelism"),
            );
          }}
        />
      </>
      <h3>State in savepoints</h3>
      <p className="muted" data-testid="state-summary">
        {stateSummary(unpinned)}
      </p>
      <div className="state-ids__buttons">
        <button
          type="button"
          className="button"
          data-testid="pin-current-ids"
          disabled={!canEdit || unpinned === 0}
          onClick={() => {
            setStateAction({ kind: "pin" });
          }}
        >
          Pin current IDs…
        </button>
        <button
          type="button"
          className="button"
          data-testid="readable-uids"
          disabled={!canEdit || unpinned === 0}
          onClick={() => {
            setStateAction({ kind: "uids" });
          }}
        >
          Give stateful operators readable uids…
        </button>
      </div>
      {stateAction !== null && (
        <StateIdsDialog
          action={stateAction}
          notify={props.onNotice}
          onClose={() => {
            setStateAction(null);
          }}
        />
      )}
      <p className="muted">Select an operator or an edge to edit it.</p>
    </div>
  );
}
