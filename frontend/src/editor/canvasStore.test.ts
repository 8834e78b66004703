import { describe, expect, it } from "vitest";

import { applyEdit } from "../graph/edits";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { editsDocument, planOf } from "../test-support/builders";
import { CanvasStore, type CanvasSources } from "./canvasStore";

function setup(): {
  store: CanvasStore;
  sources: { current: CanvasSources };
  heard: string[];
} {
  const document = editsDocument();
  const sources = {
    current: {
      document,
      plan: planOf(document),
      specs: new Map(),
      selectedNodes: new Set<number>(),
      selectedEdges: new Set<string>(),
      others: {},
    } as CanvasSources,
  };
  const store = new CanvasStore(() => sources.current);
  const heard: string[] = [];
  store.subscribe(() => heard.push("frame"));
  for (const id of ["1", "2", "3", "1-2-0-0"]) {
    store.subscribeElement(id, () => heard.push(id));
  }
  return { store, sources, heard };
}

function rename(document: StreamGraphDocument, nodeId: number, name: string): StreamGraphDocument {
  return applyEdit(document, {
    kind: "set_field",
    element: "node",
    nodeId,
    field: "name",
    value: name,
  }).document;
}

describe("canvas store", () => {
  it("tells only the edited operator about an edit of what it shows", () => {
    const { store, sources, heard } = setup();
    const frame = store.getFrame();
    sources.current = {
      ...sources.current,
      document: rename(sources.current.document, 2, "Parse"),
    };
    store.refresh();
    expect(heard).toEqual(["2"]);
    expect(store.operator("2")?.node.name).toBe("Parse");
    expect(store.getFrame().nodes).toBe(frame.nodes);
  });

  it("tells the canvas when the geometry changes", () => {
    const { store, sources, heard } = setup();
    sources.current = { ...sources.current, selectedNodes: new Set([1]) };
    store.refresh();
    expect(heard).toEqual(["frame"]);

    heard.length = 0;
    store.drag(new Map([[2, { x: 300, y: 40 }]]));
    expect(heard).toEqual(["frame"]);
    expect(store.getFrame().nodes.find((node) => node.id === "2")?.position).toEqual({
      x: 300,
      y: 40,
    });

    heard.length = 0;
    store.endDrag();
    store.endDrag();
    expect(heard).toEqual(["frame"]);
  });

  it("stops telling those who unsubscribed, and says nothing when nothing changed", () => {
    const { store, sources, heard } = setup();
    const stop = store.subscribeElement("3", () => heard.push("again"));
    stop();
    store.refresh();
    expect(heard).toEqual([]);
    sources.current = { ...sources.current, document: rename(sources.current.document, 3, "Out") };
    store.refresh();
    expect(heard).toEqual(["3"]);
  });
});
