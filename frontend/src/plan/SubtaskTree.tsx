import { useState } from "react";

import type { Span } from "../api/resources";
import { shortId } from "../ui/CopyId";
import {
  chunks,
  partitionsReadBy,
  plural,
  rangeText,
  spanText,
  subtaskName,
  subtaskRange,
  type ExecutionVertexView,
} from "./executionModel";

/** A vertex's subtasks: single ones at low parallelism, ranges that open otherwise. */
export function SubtaskTree({ view }: { readonly view: ExecutionVertexView }) {
  const all: Span = [0, view.vertex.parallelism - 1];
  return <SubtaskRows view={view} span={all} />;
}

function SubtaskRows({ view, span }: { readonly view: ExecutionVertexView; readonly span: Span }) {
  return (
    <ul className="range-list">
      {chunks(span).map((part) => (
        <SubtaskRow key={part[0]} view={view} span={part} />
      ))}
    </ul>
  );
}

function SubtaskRow({ view, span }: { readonly view: ExecutionVertexView; readonly span: Span }) {
  const [open, setOpen] = useState(false);
  const { vertex, inputs, outputs } = view;
  const single = span[0] === span[1];
  const info = subtaskRange(vertex, span);
  const count = span[1] - span[0] + 1;
  return (
    <li data-testid={`exec-group-${vertex.id}-${span[0]}-${span[1]}`}>
      <div className="range-row range-row--subtasks">
        {single ? (
          <span className="range-row__toggle" />
        ) : (
          <button
            type="button"
            className="range-row__toggle"
            aria-expanded={open}
            aria-label={`${open ? "Close" : "Open"} subtasks ${spanText(span)}`}
            onClick={() => {
              setOpen(!open);
            }}
          >
            {open ? "▾" : "▸"}
          </button>
        )}
        <span className="range-row__what">
          {single ? subtaskName(vertex, span[0]) : `subtasks ${spanText(span)}`}
          {!single && <span className="muted"> ({count})</span>}
        </span>
        <span className="range-row__fact">
          key groups {spanText(info.keyGroups)}
          {!single && (
            <span className="muted">
              {" "}
              ({rangeText(info.perSubtask[0], info.perSubtask[1])} each)
            </span>
          )}
        </span>
        <span className="range-row__io">
          {inputs.map((input, index) => {
            const read = partitionsReadBy(input.edge, span);
            return (
              <span key={index} className="range-row__fact muted">
                reads {input.producer?.name ?? "its input"}{" "}
                {read === null ? "(unknown)" : `partitions ${spanText(read)}`}
              </span>
            );
          })}
          {single &&
            outputs.map((output) => (
              <span key={output.dataSet} className="range-row__fact muted">
                writes{" "}
                <code title={`${output.dataSet}#${span[0]}`}>
                  {shortId(output.dataSet)}#{span[0]}
                </code>
              </span>
            ))}
          {!single && outputs.length > 0 && (
            <span className="range-row__fact muted">
              writes {plural(count * outputs.length, "partition")}
            </span>
          )}
        </span>
      </div>
      {open && !single && <SubtaskRows view={view} span={span} />}
    </li>
  );
}
