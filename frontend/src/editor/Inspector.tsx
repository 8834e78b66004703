import { edgeKeyOf } from "../graph/canvas";
import { edgeIndex } from "../graph/edits";
import { documentEdges } from "../graph/streamgraph";
import { useDocumentStore, useSelection } from "./context";
import { EdgeProperties } from "./EdgeProperties";
import { NodeProperties } from "./NodeProperties";
import type { Notify } from "./notices";
import { PipelineSettings } from "./PipelineSettings";

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
