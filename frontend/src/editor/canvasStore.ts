/**
 * The canvas of one open pipeline, kept up to date outside React: it rebuilds
 * the canvas frame (`CanvasModel`) whenever what it is made of changes, and
 * tells each subscriber only about what it asked for.
 *
 * The canvas component subscribes to the frame's nodes and edges, which change
 * only with geometry (an element added, removed, moved or selected). Each
 * operator, chain box and edge subscribes to its own view by id, so an edit
 * that changes what one operator shows reaches that operator and nothing else.
 * Rebuilding runs inside the store update that caused it, so an edit and its
 * effect on the canvas are rendered together.
 */

import type { CanvasPosition } from "../graph/canvas";
import {
  CanvasModel,
  type CanvasFrame,
  type CanvasInputs,
  type ChainView,
  type EdgeView,
  type OperatorView,
} from "./canvasModel";

/** What a frame is built from, apart from the nodes being dragged (which the store keeps). */
export type CanvasSources = Omit<CanvasInputs, "dragging">;

type Listener = () => void;

const NO_DRAG: ReadonlyMap<number, CanvasPosition> = new Map();

export class CanvasStore {
  private readonly model = new CanvasModel();
  private frame: CanvasFrame;
  private dragging = NO_DRAG;
  private readonly frameListeners = new Set<Listener>();
  private readonly elementListeners = new Map<string, Set<Listener>>();

  /** `read` gives the current sources; `refresh` is to be called whenever they change. */
  constructor(private readonly read: () => CanvasSources | null) {
    const sources = read();
    this.frame = this.model.build(sources === null ? emptySources() : this.inputs(sources));
  }

  /** Rebuild from the current sources, and tell the subscribers of what changed. */
  refresh(): void {
    const sources = this.read();
    if (sources === null) {
      return;
    }
    const previous = this.frame;
    const next = this.model.build(this.inputs(sources));
    this.frame = next;
    for (const id of next.changed) {
      const listeners = this.elementListeners.get(id);
      if (listeners !== undefined) {
        for (const listener of [...listeners]) {
          listener();
        }
      }
    }
    if (next.nodes !== previous.nodes || next.edges !== previous.edges) {
      for (const listener of [...this.frameListeners]) {
        listener();
      }
    }
  }

  /** Nodes being dragged are drawn here until the drop stores their positions. */
  drag(moved: ReadonlyMap<number, CanvasPosition>): void {
    this.dragging = new Map([...this.dragging, ...moved]);
    this.refresh();
  }

  endDrag(): void {
    if (this.dragging.size > 0) {
      this.dragging = NO_DRAG;
      this.refresh();
    }
  }

  readonly getFrame = (): CanvasFrame => this.frame;

  readonly subscribe = (listener: Listener): (() => void) => {
    this.frameListeners.add(listener);
    return () => {
      this.frameListeners.delete(listener);
    };
  };

  /** Subscribe to the view of one element (operator, chain box or edge) by its canvas id. */
  subscribeElement(id: string, listener: Listener): () => void {
    let listeners = this.elementListeners.get(id);
    if (listeners === undefined) {
      listeners = new Set();
      this.elementListeners.set(id, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) {
        this.elementListeners.delete(id);
      }
    };
  }

  operator(id: string): OperatorView | undefined {
    return this.frame.operators.get(id);
  }

  chain(id: string): ChainView | undefined {
    return this.frame.chains.get(id);
  }

  edge(id: string): EdgeView | undefined {
    return this.frame.edgeViews.get(id);
  }

  private inputs(sources: CanvasSources): CanvasInputs {
    return { ...sources, dragging: this.dragging };
  }
}

function emptySources(): CanvasInputs {
  return {
    document: { format: "streamgraph/v1", nodes: [] },
    plan: null,
    specs: new Map(),
    selectedNodes: new Set(),
    selectedEdges: new Set(),
    others: {},
    dragging: NO_DRAG,
  };
}
