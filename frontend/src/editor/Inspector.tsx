import type { OperatorSpec } from "../api/resources";
import { canvasEdgeId, edgeKeyOf } from "../graph/canvas";
import { edgeIndex, type EdgeKey, type Edit } from "../graph/edits";
import type { JsonValue } from "../graph/json";
import {
  CHAINING_STRATEGIES,
  documentEdges,
  EXCHANGE_MODES,
  PARTITIONERS,
  RUNTIME_MODES,
  type ChainingStrategy,
  type ExchangeMode,
  type Partitioner,
  type RuntimeMode,
  type StreamEdge,
  type StreamGraphDocument,
  type StreamNode,
} from "../graph/streamgraph";
import { CopyId } from "../ui/CopyId";
import { effectiveParallelism } from "./canvasModel";
import { withForwardFixes } from "./commands";
import { useDocumentStore, useEditor, useSelection } from "./context";
import { CheckField, CommitField, SelectField } from "./fields";
import type { Notify } from "./notices";
import {
  paramText,
  parseOptionalText,
  parseParallelism,
  parseParam,
  parseParamsObject,
  parseUidHash,
  type Parsed,
} from "./values";

/** The right-hand panel: the selected operator, the selected edge, or the pipeline's settings. */
export function Inspector({ onNotice }: { readonly onNotice: Notify }) {
  const document = useDocumentStore((state) => state.document);
  const nodes = useSelection((state) => state.nodes);
  const edges = useSelection((state) => state.edges);
  if (document === null) {
    return null;
  }
  if (nodes.size === 1 && edges.size === 0) {
    const [id] = nodes;
    const node = document.nodes.find((n) => n.id === id);
    if (node !== undefined) {
      return <NodeProperties key={node.id} document={document} node={node} onNotice={onNotice} />;
    }
  }
  if (edges.size === 1 && nodes.size === 0) {
    const [id = ""] = edges;
    const key = edgeKeyOf(id);
    const index = key === null ? -1 : edgeIndex(document, key);
    const edge = documentEdges(document)[index];
    if (key !== null && edge !== undefined) {
      return (
        <EdgeProperties key={id} edgeKey={key} edge={edge} index={index} onNotice={onNotice} />
      );
    }
  }
  if (nodes.size + edges.size > 1) {
    return (
      <div className="inspector">
        <h2>Selection</h2>
        <p>
          {nodes.size} operators and {edges.size} edges selected.
        </p>
        <p className="muted">
          Delete removes them; Ctrl+C / Ctrl+V copies them; drag one to move them all.
        </p>
      </div>
    );
  }
  return <PipelineSettings document={document} onNotice={onNotice} />;
}

/** Applies a parallelism change, switching FORWARD edges it would break (one undo step). */
function useParallelismCommit(onNotice: Notify) {
  const { session } = useEditor();
  return (parsed: Parsed, edit: (value: JsonValue) => Edit): void => {
    const store = session.document.getState();
    if (!parsed.ok) {
      onNotice(parsed.message);
      return;
    }
    if (store.document === null) {
      return;
    }
    const { edits, switched } = withForwardFixes(store.document, [edit(parsed.value)]);
    const result = store.applyEdits(edits);
    if (!result.ok) {
      onNotice(result.error.message);
    } else if (switched.length > 0) {
      const names = new Map(store.document.nodes.map((node) => [node.id, node.name]));
      const list = switched
        .map(
          ([source, target]) => `${names.get(source) ?? source} → ${names.get(target) ?? target}`,
        )
        .join(", ");
      onNotice(
        `FORWARD cannot cross a parallelism change, so ${list} now use${switched.length === 1 ? "s" : ""} REBALANCE (Undo reverts both).`,
        "info",
      );
    }
  };
}

/** Reports a refused edit or a value that does not parse. */
function useCommit(onNotice: (message: string) => void) {
  return (parsed: Parsed, apply: (value: JsonValue) => { ok: boolean; error?: Error }): void => {
    if (!parsed.ok) {
      onNotice(parsed.message);
      return;
    }
    const result = apply(parsed.value);
    if (!result.ok && result.error !== undefined) {
      onNotice(result.error.message);
    }
  };
}

function NodeProperties(props: {
  readonly document: StreamGraphDocument;
  readonly node: StreamNode;
  readonly onNotice: (message: string) => void;
}) {
  const { document, node } = props;
  const { session, catalog, canEdit } = useEditor();
  const plan = useDocumentStore((state) => state.plan);
  const commit = useCommit(props.onNotice);
  const commitParallelism = useParallelismCommit(props.onNotice);
  const spec: OperatorSpec | undefined = catalog.operators.find((s) => s.kind === node.operator);
  const planNode = plan?.nodes[String(node.id)];
  const vertex = planNode === undefined ? undefined : plan?.vertices[planNode.vertex];
  const diagnostics = (plan?.diagnostics ?? []).filter(
    (d) => d.node === node.id && d.edge === null,
  );
  const store = session.document.getState;
  const setField = (field: string) => (value: JsonValue) =>
    store().setNodeField(node.id, field, value);
  const params = node.params ?? {};
  const paramError = (name: string): string | null =>
    diagnostics.find((d) => d.field === `params.${name}`)?.message ?? null;
  const fieldError = (name: string): string | null =>
    diagnostics.find((d) => d.field === name)?.message ?? null;

  return (
    <div className="inspector" data-testid="node-properties">
      <h2>{node.name}</h2>
      <p className="muted">
        {spec?.label ?? node.operator ?? "operator"} · node {node.id}
        {spec !== undefined && ` — ${spec.description}`}
      </p>
      {diagnostics.length > 0 && (
        <ul className="diagnostic-list">
          {diagnostics.map((d, i) => (
            <li key={i} className={`diagnostic diagnostic--${d.severity}`}>
              {d.message}
            </li>
          ))}
        </ul>
      )}
      <CommitField
        label="Name"
        value={node.name}
        disabled={!canEdit}
        testId="prop-name"
        error={fieldError("name")}
        onCommit={(text) => {
          commit(
            text.trim() === ""
              ? { ok: false, message: "A name cannot be empty" }
              : { ok: true, value: text },
            setField("name"),
          );
        }}
      />
      <h3>Parameters</h3>
      {spec === undefined ? (
        <CommitField
          label="params (JSON)"
          multiline
          monospace
          value={JSON.stringify(params)}
          disabled={!canEdit}
          help="This operator is not in the catalog; its parameters are kept as they are."
          onCommit={(text) => {
            commit(parseParamsObject(text), setField("params"));
          }}
        />
      ) : spec.params.length === 0 ? (
        <p className="muted">No parameters.</p>
      ) : (
        spec.params.map((param) =>
          param.type === "enum" && param.choices !== null ? (
            <SelectField
              key={param.name}
              label={param.label}
              value={paramText(params[param.name]) || (param.choices[0] ?? "")}
              options={param.choices}
              disabled={!canEdit}
              help={param.help}
              onChange={(value) => {
                commit({ ok: true, value: { ...params, [param.name]: value } }, setField("params"));
              }}
            />
          ) : param.type === "boolean" ? (
            <CheckField
              key={param.name}
              label={param.label}
              checked={params[param.name] === true}
              disabled={!canEdit}
              help={param.help}
              onChange={(checked) => {
                commit(
                  { ok: true, value: { ...params, [param.name]: checked } },
                  setField("params"),
                );
              }}
            />
          ) : (
            <CommitField
              key={param.name}
              label={param.label}
              value={paramText(params[param.name])}
              multiline={param.type === "expression"}
              monospace={param.type === "expression" || param.type === "values"}
              disabled={!canEdit}
              help={param.help}
              error={paramError(param.name)}
              testId={`param-${param.name}`}
              onCommit={(text) => {
                const parsed = parseParam(param, text);
                if (!parsed.ok) {
                  props.onNotice(parsed.message);
                  return;
                }
                const next: Record<string, JsonValue> = { ...params };
                if (parsed.value === null) {
                  // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- a cleared optional parameter
                  delete next[param.name];
                } else {
                  next[param.name] = parsed.value;
                }
                commit({ ok: true, value: next }, setField("params"));
              }}
            />
          ),
        )
      )}
      <h3>Parallelism and chaining</h3>
      <CommitField
        label="Parallelism"
        value={(node.parallelism ?? -1) > 0 ? String(node.parallelism) : ""}
        placeholder={`default (${effectiveParallelism(document, { ...node, parallelism: -1 })})`}
        disabled={!canEdit}
        testId="prop-parallelism"
        error={fieldError("parallelism")}
        onCommit={(text) => {
          commitParallelism(parseParallelism(text, "Parallelism"), (value) => ({
            kind: "set_field",
            element: "node",
            nodeId: node.id,
            field: "parallelism",
            value,
          }));
        }}
      />
      <CommitField
        label="Max parallelism"
        value={(node.maxParallelism ?? -1) > 0 ? String(node.maxParallelism) : ""}
        placeholder={
          vertex === undefined ? "default" : `default (${vertex.maxParallelism} for its chain)`
        }
        disabled={!canEdit}
        testId="prop-max-parallelism"
        error={fieldError("maxParallelism")}
        onCommit={(text) => {
          commit(parseParallelism(text, "Max parallelism"), setField("maxParallelism"));
        }}
      />
      <SelectField<ChainingStrategy>
        label="Chaining strategy"
        value={node.chainingStrategy ?? "ALWAYS"}
        options={CHAINING_STRATEGIES}
        disabled={!canEdit}
        testId="prop-chaining"
        help="ALWAYS chains with both sides; HEAD only with what follows; NEVER with nothing."
        onChange={(value) => {
          commit({ ok: true, value }, setField("chainingStrategy"));
        }}
      />
      <CommitField
        label="Slot sharing group"
        value={node.slotSharingGroup ?? ""}
        placeholder="unset"
        disabled={!canEdit}
        testId="prop-slot-sharing-group"
        onCommit={(text) => {
          commit(parseOptionalText(text), setField("slotSharingGroup"));
        }}
      />
      <CommitField
        label="Co-location group"
        value={node.coLocationGroup ?? ""}
        placeholder="none"
        disabled={!canEdit}
        onCommit={(text) => {
          commit(parseOptionalText(text), setField("coLocationGroup"));
        }}
      />
      <h3>State identity</h3>
      <CommitField
        label="uid"
        value={node.uid ?? ""}
        placeholder="none: the OperatorID depends on the topology"
        disabled={!canEdit}
        testId="prop-uid"
        error={fieldError("uid")}
        help="Set a uid to keep this operator's state across topology changes."
        onCommit={(text) => {
          commit(parseOptionalText(text), setField("uid"));
        }}
      />
      <CommitField
        label="uidHash"
        value={node.uidHash ?? ""}
        placeholder="none"
        monospace
        disabled={!canEdit}
        error={fieldError("uidHash")}
        onCommit={(text) => {
          commit(parseUidHash(text), setField("uidHash"));
        }}
      />
      <h3>Plan</h3>
      {planNode === undefined ? (
        <p className="muted">No plan: fix the problems listed below the canvas first.</p>
      ) : (
        <dl className="facts">
          <dt>OperatorID</dt>
          <dd>
            <CopyId id={planNode.operatorId} label="OperatorID" />
          </dd>
          {planNode.userDefinedId !== null && (
            <>
              <dt>User-defined ID</dt>
              <dd>
                <CopyId id={planNode.userDefinedId} label="User-defined OperatorID" />
              </dd>
            </>
          )}
          <dt>Hash from</dt>
          <dd>{planNode.hashBasis}</dd>
          <dt>Runs in</dt>
          <dd>
            {vertex?.name ?? "?"} <CopyId id={planNode.vertex} label="JobVertexID" />
          </dd>
          {vertex !== undefined && (
            <>
              <dt>Subtasks</dt>
              <dd>
                {vertex.parallelism} (max parallelism {vertex.maxParallelism})
              </dd>
              <dt>Chain</dt>
              <dd>
                {vertex.nodes.length === 1
                  ? "not chained with any other operator"
                  : `${vertex.nodes.indexOf(node.id) + 1} of ${vertex.nodes.length} operators`}
              </dd>
            </>
          )}
        </dl>
      )}
      {canEdit && (
        <button
          type="button"
          className="button button--danger"
          onClick={() => {
            const result = store().removeOperator(node.id);
            if (!result.ok) {
              props.onNotice(result.error.message);
            }
          }}
        >
          Delete operator
        </button>
      )}
    </div>
  );
}

function EdgeProperties(props: {
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
      <SelectField<Partitioner>
        label="Partitioner"
        value={edge.partitioner}
        options={PARTITIONERS}
        disabled={!canEdit}
        testId="edge-partitioner"
        help="HASH is keyBy: every key goes to the subtask owning its key group."
        onChange={(value) => {
          commit({ ok: true, value }, setField("partitioner"));
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

function PipelineSettings(props: {
  readonly document: StreamGraphDocument;
  readonly onNotice: (message: string) => void;
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
              <dd>{group.slots} slots</dd>
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
          onCommit={(text) => {
            const parsed = parseParallelism(text, "Default parallelism");
            commitParallelism(
              parsed.ok && parsed.value === -1
                ? { ok: false, message: "Default parallelism must be a whole number of at least 1" }
                : parsed,
              (value) => ({
                kind: "set_field",
                element: "config",
                field: "defaultParallelism",
                value,
              }),
            );
          }}
        />
        <CommitField
          label="Max parallelism"
          value={(config.maxParallelism ?? -1) > 0 ? String(config.maxParallelism) : ""}
          placeholder="derived per vertex"
          disabled={!canEdit}
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
      <p className="muted">Select an operator or an edge to edit it.</p>
    </div>
  );
}
