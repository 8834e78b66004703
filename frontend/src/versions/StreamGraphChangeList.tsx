import type { DiffEdgeRef, FieldChange, StreamGraphChanges } from "../api/resources";
import { fieldValueText, type DiffGraph } from "./diffModel";

/** Operators, edges and job settings that differ, with every changed field. */
export function StreamGraphChangeList(props: {
  readonly changes: StreamGraphChanges;
  readonly graph: DiffGraph;
  readonly onReveal: (node: number) => void;
}) {
  const { changes, graph, onReveal } = props;
  const names = new Map(graph.nodes.map((item) => [item.node.id, item.node.name]));
  const name = (id: number): string => names.get(id) ?? `node ${id}`;
  const edge = (ref: DiffEdgeRef): string =>
    `${name(ref.source)} → ${name(ref.target)}${ref.typeNumber === 0 ? "" : ` (input ${ref.typeNumber})`}`;
  const { nodes, edges, config } = changes;
  const count =
    nodes.added.length +
    nodes.removed.length +
    nodes.changed.length +
    edges.added.length +
    edges.removed.length +
    edges.changed.length +
    config.length;
  if (count === 0) {
    return <p className="muted">No operator, edge or job setting changed.</p>;
  }
  const nodeButton = (id: number) => (
    <button
      type="button"
      className="link-button"
      onClick={() => {
        onReveal(id);
      }}
    >
      {name(id)}
    </button>
  );
  return (
    <ul className="change-list" data-testid="stream-graph-changes">
      {config.length > 0 && (
        <li className="change change--changed">
          Job settings
          <Fields fields={config} />
        </li>
      )}
      {nodes.added.map((id) => (
        <li key={`added-${id}`} className="change change--added">
          {nodeButton(id)} added
        </li>
      ))}
      {nodes.removed.map((id) => (
        <li key={`removed-${id}`} className="change change--removed">
          {nodeButton(id)} removed
        </li>
      ))}
      {nodes.changed.map((entry) => (
        <li key={`changed-${entry.node}`} className="change change--changed">
          {nodeButton(entry.node)}
          <Fields fields={entry.fields} />
        </li>
      ))}
      {edges.added.map((ref, index) => (
        <li key={`edge-added-${index}`} className="change change--added">
          Edge {edge(ref)} ({ref.partitioner ?? "FORWARD"}) added
        </li>
      ))}
      {edges.removed.map((ref, index) => (
        <li key={`edge-removed-${index}`} className="change change--removed">
          Edge {edge(ref)} ({ref.partitioner ?? "FORWARD"}) removed
        </li>
      ))}
      {edges.changed.map((ref, index) => (
        <li key={`edge-changed-${index}`} className="change change--changed">
          Edge {edge(ref)}
          <Fields fields={ref.fields} />
        </li>
      ))}
    </ul>
  );
}

function Fields({ fields }: { readonly fields: readonly FieldChange[] }) {
  return (
    <ul className="field-changes">
      {fields.map((change) => (
        <li key={change.field}>
          <code>{change.field}</code> {fieldValueText(change.field, change.old)} →{" "}
          {fieldValueText(change.field, change.new)}
        </li>
      ))}
    </ul>
  );
}
