import type { OperatorSpec } from "../api/resources";
import type { JsonValue } from "../graph/json";
import {
  CHAINING_STRATEGIES,
  type ChainingStrategy,
  type StreamGraphDocument,
  type StreamNode,
} from "../graph/streamgraph";
import { CopyId } from "../ui/CopyId";
import { effectiveParallelism } from "./canvasModel";
import { useCommit, useParallelismCommit } from "./commit";
import { useDocumentStore, useEditor } from "./context";
import { CheckField, CommitField, SelectField } from "./fields";
import { OperatorKindField } from "./OperatorKindField";
import { applyingParams, withParam } from "./params";
import {
  paramText,
  parseOptionalText,
  parseParallelism,
  parseParam,
  parseParamsObject,
  parseUidHash,
} from "./values";

/**
 * The selected operator's properties: name, kind (with an imported node's checklist),
 * operator parameters (typed by the catalog),
 * parallelism, max parallelism, chaining strategy, groups, uid and uidHash, and the
 * IDs and chain the plan gives it.
 */
export function NodeProperties(props: {
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
      <OperatorKindField node={node} onNotice={props.onNotice} />
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
        applyingParams(spec, params).map((param) =>
          param.type === "enum" && param.choices !== null ? (
            <SelectField
              key={param.name}
              label={param.label}
              value={paramText(params[param.name]) || (param.choices[0] ?? "")}
              options={param.choices}
              disabled={!canEdit}
              help={param.help}
              testId={`param-${param.name}`}
              onChange={(value) => {
                // One edit: also drops what the new choice leaves out, so undo restores both.
                commit(
                  { ok: true, value: withParam(spec, params, param.name, value) },
                  setField("params"),
                );
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
        parse={(text) => parseParallelism(text, "Parallelism")}
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
        parse={(text) => parseParallelism(text, "Max parallelism")}
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
        placeholder="default"
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
                  : // The plan lists a chain's operators tail first, its head last.
                    `${vertex.nodes.length - vertex.nodes.indexOf(node.id)} of ${vertex.nodes.length} operators`}
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
