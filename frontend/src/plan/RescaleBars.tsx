import type { RescaledVertex } from "../api/resources";
import { afterRows, beforeRows, firstRows, subtaskColour, type BarRow } from "./rescaleModel";

/**
 * One bar of key groups per subtask, before and after: key groups 0 to max - 1 from left
 * to right, each run in the colour of the old subtask that held it; runs that move to
 * another subtask are faded.
 */
export function RescaleBars({ vertex }: { readonly vertex: RescaledVertex }) {
  const last = vertex.maxParallelism.keyGroups - 1;
  return (
    <div className="rescale-bars">
      <BarGroup
        title={`Before: ${vertex.parallelism.before} subtasks`}
        rows={beforeRows(vertex)}
        total={vertex.parallelism.before}
        side="before"
      />
      {vertex.restores ? (
        <BarGroup
          title={`After: ${vertex.parallelism.after} subtasks`}
          rows={afterRows(vertex)}
          total={vertex.parallelism.after}
          side="after"
        />
      ) : (
        <p className="form-error">
          After: no key groups, the state cannot be restored at {vertex.parallelism.after} subtasks.
        </p>
      )}
      <div className="rescale-bar rescale-bar--axis muted">
        <span />
        <span className="rescale-bars__axis">
          <span>key group 0</span>
          <span>{last}</span>
        </span>
        <span />
      </div>
      <p className="rescale-bars__legend muted">
        Colour: the subtask that held the key groups before · faded: they move to another subtask.
      </p>
    </div>
  );
}

function BarGroup(props: {
  readonly title: string;
  readonly rows: readonly BarRow[];
  /** Subtasks on this side, drawn or not. */
  readonly total: number;
  readonly side: "before" | "after";
}) {
  const { shown, hidden } = firstRows(props.rows, props.total);
  return (
    <div className="rescale-bars__group" data-testid={`rescale-bars-${props.side}`}>
      <h4>{props.title}</h4>
      {shown.map((row) => (
        <div key={row.index} className="rescale-bar" title={row.title}>
          <span className="rescale-bar__label">#{row.index}</span>
          <div className="rescale-bar__track" role="img" aria-label={row.title}>
            {row.segments.map((segment) => (
              <span
                key={segment.keyGroups[0]}
                className={
                  segment.kept ? "rescale-bar__run" : "rescale-bar__run rescale-bar__run--moved"
                }
                style={{
                  left: `${segment.left}%`,
                  width: `${segment.width}%`,
                  background: subtaskColour(segment.from),
                }}
              />
            ))}
          </div>
          <span className="rescale-bar__note">{row.note}</span>
        </div>
      ))}
      {hidden > 0 && (
        <p className="muted">
          … and {hidden} more subtask{hidden === 1 ? "" : "s"}, not drawn.
        </p>
      )}
    </div>
  );
}
