import { useCallback, useLayoutEffect, useMemo, useRef, useState } from "react";

import { plural } from "./executionModel";
import {
  arrowPath,
  columnOverflow,
  columnScrollTarget,
  columnSpans,
  type Box,
  type ColumnOverflow,
  type JobGraphModel,
} from "./jobGraphModel";
import { JobVertexCard } from "./JobVertexCard";

interface Measured {
  readonly boxes: ReadonlyMap<string, Box>;
  readonly width: number;
  readonly height: number;
}

const ARROW_KINDS = ["pointwise", "all-to-all"] as const;
const NOTHING: Measured = { boxes: new Map(), width: 0, height: 0 };
const IN_VIEW: ColumnOverflow = { before: 0, after: 0 };
/** Room left beside a column scrolled into view, so the fade does not cover it. */
const SCROLL_MARGIN = 24;

/**
 * The vertices in columns (one per layer) and an arrow per JobEdge behind them. The
 * columns narrow down to a readable width; past that the graph scrolls sideways, and
 * buttons above it say how many columns are out of view on each side.
 */
export function JobGraphColumns(props: {
  readonly model: JobGraphModel;
  readonly onSelectNodes: (nodes: number[]) => void;
}) {
  const { model, onSelectNodes } = props;
  const container = useRef<HTMLDivElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const cards = useRef(new Map<string, HTMLElement>());
  const [measured, setMeasured] = useState<Measured>(NOTHING);
  const [overflow, setOverflow] = useState<ColumnOverflow>(IN_VIEW);
  const byId = new Map(model.vertices.map((vertex) => [vertex.id, vertex]));
  const spans = useMemo(
    () => columnSpans(model.columns, measured.boxes),
    [model.columns, measured.boxes],
  );

  const register = useCallback((id: string, element: HTMLElement | null) => {
    if (element === null) {
      cards.current.delete(id);
    } else {
      cards.current.set(id, element);
    }
  }, []);

  // Cards grow with their content: measure after every layout change.
  useLayoutEffect(() => {
    const root = container.current;
    if (root === null) {
      return;
    }
    const measure = (): void => {
      const boxes = new Map<string, Box>();
      for (const [id, element] of cards.current) {
        boxes.set(id, {
          left: element.offsetLeft,
          top: element.offsetTop,
          width: element.offsetWidth,
          height: element.offsetHeight,
        });
      }
      setMeasured({ boxes, width: root.scrollWidth, height: root.scrollHeight });
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(root);
    for (const element of cards.current.values()) {
      observer.observe(element);
    }
    return () => {
      observer.disconnect();
    };
  }, [model]);

  // What is out of view changes with scrolling and with the view's width.
  useLayoutEffect(() => {
    const view = scroller.current;
    if (view === null) {
      return;
    }
    const update = (): void => {
      const next = columnOverflow(spans, view.scrollLeft, view.clientWidth);
      setOverflow((now) => (now.before === next.before && now.after === next.after ? now : next));
    };
    update();
    view.addEventListener("scroll", update, { passive: true });
    const observer = new ResizeObserver(update);
    observer.observe(view);
    return () => {
      view.removeEventListener("scroll", update);
      observer.disconnect();
    };
  }, [spans]);

  const reveal = (side: keyof ColumnOverflow): void => {
    const view = scroller.current;
    if (view === null) {
      return;
    }
    const left = columnScrollTarget(spans, view.scrollLeft, view.clientWidth, side, SCROLL_MARGIN);
    if (left !== null) {
      view.scrollTo({ left });
    }
  };
  const overflowing = overflow.before > 0 || overflow.after > 0;

  return (
    <div
      className="jobgraph-frame"
      data-more-before={overflow.before > 0}
      data-more-after={overflow.after > 0}
    >
      {overflowing && (
        <div className="jobgraph-nav" data-testid="jobgraph-nav">
          <button
            type="button"
            className="button"
            disabled={overflow.before === 0}
            onClick={() => {
              reveal("before");
            }}
            title="Scroll the JobGraph left by a column"
            data-testid="jobgraph-scroll-before"
          >
            ← {overflow.before > 0 ? plural(overflow.before, "column") : "Start"}
          </button>
          <button
            type="button"
            className="button"
            disabled={overflow.after === 0}
            onClick={() => {
              reveal("after");
            }}
            title="Scroll the JobGraph right by a column"
            data-testid="jobgraph-scroll-after"
          >
            {overflow.after > 0 ? plural(overflow.after, "more column") : "End"} →
          </button>
        </div>
      )}
      <div
        className="jobgraph-scroll"
        ref={scroller}
        role="region"
        aria-label="JobGraph columns"
        // Focusable, so the arrow keys scroll it too.
        tabIndex={0}
        data-testid="jobgraph-scroll"
      >
        <div className="jobgraph" ref={container}>
          <svg
            className="jobgraph__arrows"
            width={measured.width}
            height={measured.height}
            aria-hidden="true"
          >
            <defs>
              {ARROW_KINDS.map((kind) => (
                <marker
                  key={kind}
                  id={`jobgraph-arrowhead-${kind}`}
                  className={`jobgraph__arrowhead--${kind}`}
                  viewBox="0 0 10 10"
                  refX="9"
                  refY="5"
                  markerWidth="7"
                  markerHeight="7"
                  orient="auto"
                >
                  <path d="M 0 0 L 10 5 L 0 10 z" />
                </marker>
              ))}
            </defs>
            {model.edges.map((edge) => {
              const from = measured.boxes.get(edge.producer);
              const to = measured.boxes.get(edge.consumer);
              if (from === undefined || to === undefined) {
                return null;
              }
              const kind = edge.distributionPattern === "POINTWISE" ? "pointwise" : "all-to-all";
              return (
                <path
                  key={edge.key}
                  d={arrowPath(from, to)}
                  className={`jobgraph__arrow jobgraph__arrow--${kind}`}
                  markerEnd={`url(#jobgraph-arrowhead-${kind})`}
                />
              );
            })}
          </svg>
          {model.columns.map((column, index) => (
            <div className="jobgraph__column" key={index}>
              {column.map((id) => {
                const vertex = byId.get(id);
                return vertex === undefined ? null : (
                  <JobVertexCard
                    key={id}
                    vertex={vertex}
                    register={register}
                    onSelectNodes={onSelectNodes}
                  />
                );
              })}
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}
