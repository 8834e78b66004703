import { useCallback, useLayoutEffect, useRef, useState } from "react";

import { arrowPath, type Box, type JobGraphModel } from "./jobGraphModel";
import { JobVertexCard } from "./JobVertexCard";

interface Measured {
  readonly boxes: ReadonlyMap<string, Box>;
  readonly width: number;
  readonly height: number;
}

const ARROW_KINDS = ["pointwise", "all-to-all"] as const;
const NOTHING: Measured = { boxes: new Map(), width: 0, height: 0 };

/** The vertices in columns (one per layer) and an arrow per JobEdge behind them. */
export function JobGraphColumns(props: {
  readonly model: JobGraphModel;
  readonly onSelectNodes: (nodes: number[]) => void;
}) {
  const { model, onSelectNodes } = props;
  const container = useRef<HTMLDivElement>(null);
  const cards = useRef(new Map<string, HTMLElement>());
  const [measured, setMeasured] = useState<Measured>(NOTHING);
  const byId = new Map(model.vertices.map((vertex) => [vertex.id, vertex]));

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

  return (
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
  );
}
