import { useState } from "react";

import type { ExecutionEdgeSummary, Span } from "../api/resources";
import { CopyId } from "../ui/CopyId";
import {
  chunks,
  plural,
  spanText,
  wiringSummary,
  wiringText,
  type ExecutionInput,
} from "./executionModel";

/**
 * One input of a vertex: which producer partitions feed which subtasks, as one
 * line for the whole edge and, for a pointwise edge, its groups in ranges.
 */
export function WiringTree({ input }: { readonly input: ExecutionInput }) {
  const [open, setOpen] = useState(false);
  const { edge, jobEdge, producer } = input;
  const groups = edge.groups.length;
  return (
    <li className="wiring" data-testid={`exec-edge-${edge.producer}-${edge.consumer}`}>
      <div>
        ← <strong>{producer?.name ?? edge.producer}</strong>{" "}
        <span className="muted">(p{producer?.parallelism ?? "?"})</span> ·{" "}
        {jobEdge !== null && `${jobEdge.shipStrategy} · `}
        <span
          className={`pattern pattern--${edge.pattern === "POINTWISE" ? "pointwise" : "all-to-all"}`}
        >
          {edge.pattern}
        </span>
        {jobEdge !== null && (
          <>
            {" "}
            · {jobEdge.resultPartitionType} · data set{" "}
            <CopyId id={jobEdge.dataSet} label="IntermediateDataSetID" />
          </>
        )}
      </div>
      <div className="range-row">
        {groups > 1 ? (
          <button
            type="button"
            className="range-row__toggle"
            aria-expanded={open}
            aria-label={`${open ? "Close" : "Open"} the ${groups} partition groups`}
            onClick={() => {
              setOpen(!open);
            }}
          >
            {open ? "▾" : "▸"}
          </button>
        ) : (
          <span className="range-row__toggle" />
        )}
        <span>{wiringText(wiringSummary(edge.groups), edge.pattern)}</span>
        {groups > 1 && <span className="muted">{plural(groups, "group")}</span>}
      </div>
      {open && <GroupRows edge={edge} span={[0, groups - 1]} />}
    </li>
  );
}

function GroupRows({ edge, span }: { readonly edge: ExecutionEdgeSummary; readonly span: Span }) {
  return (
    <ul className="range-list">
      {chunks(span).map((part) => (
        <GroupRow key={part[0]} edge={edge} span={part} />
      ))}
    </ul>
  );
}

function GroupRow({ edge, span }: { readonly edge: ExecutionEdgeSummary; readonly span: Span }) {
  const [open, setOpen] = useState(false);
  const single = span[0] === span[1];
  return (
    <li>
      <div className="range-row">
        {single ? (
          <span className="range-row__toggle" />
        ) : (
          <button
            type="button"
            className="range-row__toggle"
            aria-expanded={open}
            aria-label={`${open ? "Close" : "Open"} groups ${spanText(span)}`}
            onClick={() => {
              setOpen(!open);
            }}
          >
            {open ? "▾" : "▸"}
          </button>
        )}
        <span className="muted">{single ? `group ${span[0]}` : `groups ${spanText(span)}`}</span>
        <span>{wiringText(wiringSummary(edge.groups, span), edge.pattern)}</span>
      </div>
      {open && !single && <GroupRows edge={edge} span={span} />}
    </li>
  );
}
