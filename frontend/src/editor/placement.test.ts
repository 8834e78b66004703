import { describe, expect, it } from "vitest";

import type { OperatorCategory, OperatorSpec } from "../api/resources";
import { LAYER_GAP, NODE_GAP, NODE_HEIGHT, NODE_WIDTH } from "../canvas/geometry";
import { GRID } from "../graph/canvas";
import { applyEdit } from "../graph/edits";
import { documentEdges, type StreamGraphDocument } from "../graph/streamgraph";
import { editsDocument } from "../test-support/builders";
import { newOperator } from "./commands";
import {
  CLEARANCE,
  drawnPositions,
  freeSpotBelow,
  placeFromPalette,
  showsWhole,
} from "./placement";

function spec(
  kind: string,
  category: OperatorCategory,
  inputs: 0 | 1 | 2 = 1,
  keyed = false,
): OperatorSpec {
  return {
    kind,
    label: kind,
    category,
    description: "",
    inputs,
    keyed,
    defaults: { name: kind, chainingStrategy: "ALWAYS", factory: "OPERATOR" },
    params: [],
    palette: true,
  };
}

const SOURCE = spec("source.sequence", "source", 0);
const MAP = spec("map", "transform");
const REDUCE = spec("reduce", "keyed", 1, true);
const CO_MAP = spec("co_map", "multi-input", 2);
const PRINT = spec("sink.print", "sink");
const SPECS = new Map([SOURCE, MAP, REDUCE, CO_MAP, PRINT].map((item) => [item.kind, item]));

/** Source (40, 160) -> Map (540, 160) -> Sink (1040, 160), with room between them. */
function placed(): StreamGraphDocument {
  const document = editsDocument();
  return {
    ...document,
    nodes: document.nodes.map((node, index) => ({ ...node, ui: { x: 40 + 500 * index, y: 160 } })),
  };
}

const BESIDE_MAP = { x: 540 + NODE_WIDTH + LAYER_GAP, y: 160 };
const ROW = NODE_HEIGHT + NODE_GAP;
const FAR_AWAY = { x: 2000, y: 2000 };

function place(
  adding: OperatorSpec,
  selected: readonly number[],
  document: StreamGraphDocument = placed(),
  viewCentre = FAR_AWAY,
) {
  return placeFromPalette(document, adding, {
    selected: new Set(selected),
    specs: SPECS,
    viewCentre,
  });
}

describe("a free spot", () => {
  it("is the start when no operator is near it", () => {
    expect(freeSpotBelow({ x: 0, y: 0 }, [])).toEqual({ x: 0, y: 0 });
    const justClear = { x: NODE_WIDTH + CLEARANCE, y: 0 };
    expect(freeSpotBelow({ x: 0, y: 0 }, [justClear])).toEqual({ x: 0, y: 0 });
  });

  it("steps down past every operator in the way, a row gap below each", () => {
    const taken = [
      { x: 30, y: 10 },
      { x: -40, y: 10 + ROW },
      { x: 500, y: 10 + 2 * ROW },
    ];
    // The third is far to the right: the spot below the second one is free.
    expect(freeSpotBelow({ x: 0, y: 0 }, taken)).toEqual({ x: 0, y: 10 + 2 * ROW });
  });

  it("keeps its clearance from an operator a little below", () => {
    expect(freeSpotBelow({ x: 0, y: 0 }, [{ x: 0, y: NODE_HEIGHT + CLEARANCE - 1 }])).toEqual({
      x: 0,
      y: NODE_HEIGHT + CLEARANCE - 1 + ROW,
    });
  });
});

describe("an operator added from the palette", () => {
  it("goes to the right of the one selected operator and is fed by it", () => {
    const { position, inbound } = place(MAP, [2]);
    expect(position).toEqual({ x: 782, y: 160 });
    expect(position).toEqual(BESIDE_MAP);
    expect(inbound).toEqual({
      source: 2,
      partitioner: null,
      exchangeMode: "UNDEFINED",
      typeNumber: 0,
      sideOutputTag: null,
    });
  });

  it("steps down when the place beside is taken", () => {
    // The map sits where an operator added after the source would go.
    const document = placed();
    const close = {
      ...document,
      nodes: document.nodes.map((node) =>
        node.id === 2 ? { ...node, ui: { x: 300, y: 180 } } : node,
      ),
    };
    const { position, inbound } = place(MAP, [1], close);
    expect(position).toEqual({ x: 40 + NODE_WIDTH + LAYER_GAP, y: 180 + ROW });
    expect(inbound?.source).toBe(1);
  });

  it("is not fed by a sink, which sends nothing on", () => {
    expect(place(MAP, [3])).toEqual({
      position: { x: 1040 + NODE_WIDTH + LAYER_GAP, y: 160 },
      inbound: null,
    });
  });

  it("is not fed when it is a source, which takes no input", () => {
    expect(place(SOURCE, [2])).toEqual({ position: BESIDE_MAP, inbound: null });
  });

  it("is not fed by an operator of a kind the catalog does not know", () => {
    const document = placed();
    const unknown = {
      ...document,
      nodes: document.nodes.map((node) => (node.id === 2 ? { ...node, operator: "" } : node)),
    };
    expect(place(MAP, [2], unknown).inbound).toBeNull();
  });

  it("is fed as a drag would feed it: keyed by the record, or on its first input", () => {
    expect(place(REDUCE, [2]).inbound).toMatchObject({ partitioner: "HASH", key: { fn: "x" } });
    expect(place(CO_MAP, [2]).inbound).toMatchObject({ source: 2, typeNumber: 1 });
  });

  it("goes in the middle of the view, unconnected, when no single operator is selected", () => {
    const centre = { x: 1000, y: 500 };
    const middle = { x: 1000 - NODE_WIDTH / 2, y: 500 - NODE_HEIGHT / 2 };
    expect(place(MAP, [], placed(), centre)).toEqual({ position: middle, inbound: null });
    expect(place(MAP, [1, 2], placed(), centre)).toEqual({ position: middle, inbound: null });
    // A selected node someone else removed meanwhile counts as none.
    expect(place(MAP, [42], placed(), centre)).toEqual({ position: middle, inbound: null });
  });

  it("steps down from the middle of the view past the operators there", () => {
    const { position } = place(MAP, [], placed(), { x: 540 + NODE_WIDTH / 2, y: 190 });
    expect(position).toEqual({ x: 540, y: 160 + ROW });
  });

  it("goes beside an operator drawn on the grid, below the next one there", () => {
    const document = editsDocument();
    const grid = drawnPositions(document);
    expect(grid.get(2)).toEqual({ x: GRID.left + GRID.column, y: GRID.top });
    // The sink is drawn one grid column to the right, in the way.
    const { position } = place(MAP, [2], document);
    expect(position).toEqual({
      x: GRID.left + GRID.column + NODE_WIDTH + LAYER_GAP,
      y: GRID.top + ROW,
    });
  });

  it("makes one edit that adds it with its edge", () => {
    const document = placed();
    const { position, inbound } = place(MAP, [2]);
    const node = newOperator(document, MAP, position);
    const after = applyEdit(document, {
      kind: "add_node",
      node,
      ...(inbound === null ? {} : { edge: inbound }),
    }).document;
    expect(documentEdges(after).at(-1)).toMatchObject({ source: 2, target: node.id });
  });
});

describe("the view", () => {
  const view = { x: 0, y: 0, width: 800, height: 600 };

  it("shows an operator inside it whole", () => {
    expect(showsWhole(view, { x: 0, y: 0 })).toBe(true);
    expect(showsWhole(view, { x: 800 - NODE_WIDTH, y: 600 - NODE_HEIGHT })).toBe(true);
  });

  it("does not show an operator across its edge", () => {
    expect(showsWhole(view, { x: 800 - NODE_WIDTH + 1, y: 0 })).toBe(false);
    expect(showsWhole(view, { x: -1, y: 0 })).toBe(false);
    expect(showsWhole(view, { x: 0, y: 600 })).toBe(false);
  });
});
