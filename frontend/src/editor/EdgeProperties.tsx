import { canvasEdgeId } from "../graph/canvas";
import type { EdgeKey } from "../graph/edits";
import type { JsonValue } from "../graph/json";
import { EXCHANGE_MODES, type ExchangeMode, type StreamEdge } from "../graph/streamgraph";
import { CopyId } from "../ui/CopyId";
import { useCommit } from "./commit";
import { useDocumentStore, useEditor } from "./context";
import { CommitField, SelectField } from "./fields";
import {
  paramText,
  parseOptionalText,
  PARTITIONER_CHOICES,
  partitionerChoice,
  partitionerChoiceLabel,
  partitionerValue,
  type PartitionerChoice,
} from "./values";

/** The selected edge: partitioner (and key), exchange mode, side output, and its JobEdge. */
export function EdgeProperties(props: {
  readonly edgeKey: EdgeKey;
  readonly edge: StreamEdge;
  readonly index: number;
  readonly onNotice: (message: string) => void;
}) {
  const { edge, edgeKey } = props;
  const { session, canEdit } = useEditor();
  const plan = useDocumentStore((state) => state.plan);
  const document = useDocumentStore((state) => state.document);
  const commit = useCommit(props.onNotice);
  const planEdge = plan?.edges[String(props.index)];
  const diagnostics = (plan?.diagnostics ?? []).filter((d) => d.edge === props.index);
  const store = session.document.getState;
  const setField = (field: string) => (value: JsonValue) =>
    store().setEdgeField(edgeKey, field, value);
  const name = (id: number): string => document?.nodes.find((n) => n.id === id)?.name ?? String(id);
  const keyText =
    typeof edge.key === "object" && edge.key !== null && !Array.isArray(edge.key)
      ? paramText((edge.key as Record<string, JsonValue>).fn)
      : paramText(edge.key);
  const keyed = edge.partitioner === "HASH" || edge.partitioner === "CUSTOM";
  const jobEdge =
    plan === null
      ? undefined
      : Object.values(plan.vertices)
          .flatMap((v) => v.inputs)
          .find((input) => input.edge === props.index);

  return (
    <div className="inspector" data-testid="edge-properties">
      <h2>
        {name(edge.source)} → {name(edge.target)}
      </h2>
      <p className="muted">
        Stream edge {props.index} · input {edge.typeNumber ?? 0} · key {canvasEdgeId(edgeKey)}
      </p>
      {planEdge !== undefined && (
        <div
          className={`chain-status ${planEdge.chained ? "is-chained" : "is-unchained"}`}
          data-testid="edge-chain-status"
        >
          <strong>{planEdge.chained ? "Chained" : "Not chained"}</strong>
          {planEdge.chained ? (
            <p>
              Both operators run in the same task; records are handed over without serialisation.
            </p>
          ) : (
            <ul>
              {planEdge.reasons.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      {diagnostics.map((d, i) => (
        <p key={i} className={`diagnostic diagnostic--${d.severity}`}>
          {d.message}
        </p>
      ))}
      <SelectField<PartitionerChoice>
        label="Partitioner"
        value={partitionerChoice(edge)}
        options={PARTITIONER_CHOICES}
        optionLabel={(choice) => partitionerChoiceLabel(choice, planEdge?.partitioner ?? null)}
        disabled={!canEdit}
        testId="edge-partitioner"
        help="HASH is keyBy: every key goes to the subtask owning its key group. DEFAULT is Flink's choice when a program names none: FORWARD between equal parallelism, else REBALANCE."
        onChange={(value) => {
          commit({ ok: true, value: partitionerValue(value) }, setField("partitioner"));
        }}
      />
      {keyed && (
        <CommitField
          label="Key"
          value={keyText}
          monospace
          disabled={!canEdit}
          testId="edge-key"
          help="An expression over the record x, e.g. x[0] or x % 10."
          onCommit={(text) => {
            commit(
              text.trim() === ""
                ? { ok: true, value: null }
                : { ok: true, value: { fn: text.trim() } },
              setField("key"),
            );
          }}
        />
      )}
      <SelectField<ExchangeMode>
        label="Exchange mode"
        value={edge.exchangeMode ?? "UNDEFINED"}
        options={EXCHANGE_MODES}
        disabled={!canEdit}
        onChange={(value) => {
          commit({ ok: true, value }, setField("exchangeMode"));
        }}
      />
      <CommitField
        label="Side output"
        value={edge.sideOutputTag ?? ""}
        placeholder="main output"
        disabled={!canEdit}
        onCommit={(text) => {
          commit(parseOptionalText(text), setField("sideOutputTag"));
        }}
      />
      {jobEdge !== undefined && (
        <>
          <h3>JobEdge</h3>
          <dl className="facts">
            <dt>Ship strategy</dt>
            <dd>{jobEdge.shipStrategy}</dd>
            <dt>Distribution</dt>
            <dd>{jobEdge.distributionPattern}</dd>
            <dt>Result partition</dt>
            <dd>{jobEdge.resultPartitionType}</dd>
            <dt>Data set</dt>
            <dd>
              <CopyId id={jobEdge.dataSet} label="IntermediateDataSetID" />
            </dd>
          </dl>
        </>
      )}
      {canEdit && (
        <button
          type="button"
          className="button button--danger"
          onClick={() => {
            const result = store().disconnect(edgeKey);
            if (!result.ok) {
              props.onNotice(result.error.message);
            }
          }}
        >
          Delete edge
        </button>
      )}
    </div>
  );
}
