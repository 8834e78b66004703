import { memo } from "react";

import type { RescaledVertex, RescaleProblem, RescaleSimulation } from "../api/resources";
import type { Edit } from "../graph/edits";
import { CopyId } from "../ui/CopyId";
import { RescaleBars } from "./RescaleBars";
import {
  countText,
  maxParallelismText,
  movesText,
  parallelismText,
  problemsOf,
  verdictText,
} from "./rescaleModel";

/** What a rescale does: the verdict, slots, problems, the pin, and per vertex its bars. */
export function RescaleResult(props: {
  readonly simulation: RescaleSimulation;
  /** The pin may be applied: an editor looking at the working copy. */
  readonly canPin: boolean;
  readonly onPin: (edits: readonly Edit[]) => void;
}) {
  const { simulation, canPin, onPin } = props;
  const general = problemsOf(simulation, null);
  const pin = simulation.pin;
  return (
    <>
      <p
        className={simulation.restores ? "rescale-verdict" : "rescale-verdict rescale-verdict--no"}
        data-testid="rescale-verdict"
      >
        {verdictText(simulation)}
      </p>
      <p className="muted rescale-summary">
        Slots {countText(simulation.slots)} · subtasks {countText(simulation.subtasks)}
        {simulation.scope === "job" &&
          ` · default parallelism ${countText(simulation.defaultParallelism)}`}
      </p>
      {general.length > 0 && <Problems problems={general} />}
      {pin !== null && (
        <div className="rescale-pin" data-testid="rescale-pin">
          <span>{pin.message}</span>
          <button
            type="button"
            disabled={!canPin}
            title={
              canPin
                ? "One edit of the working copy, undone as one"
                : "Only an editor, on the working copy, can set it"
            }
            onClick={() => {
              onPin(pin.edits);
            }}
            data-testid="rescale-pin-apply"
          >
            Set max parallelism explicitly
          </button>
        </div>
      )}
      {simulation.vertices.map((vertex) => (
        <VertexSection
          key={vertex.id}
          vertex={vertex}
          problems={problemsOf(simulation, vertex.id)}
        />
      ))}
    </>
  );
}

const VertexSection = memo(function VertexSection(props: {
  readonly vertex: RescaledVertex;
  readonly problems: readonly RescaleProblem[];
}) {
  const { vertex, problems } = props;
  return (
    <section className="ev-section rescale-vertex" data-testid={`rescale-vertex-${vertex.id}`}>
      <header className="ev-section__header">
        <h3 className="ev-section__name">{vertex.name}</h3>
        <CopyId id={vertex.id} label="JobVertexID" />
        <span className="muted">
          {parallelismText(vertex)}
          {!vertex.followsDefault && !vertex.changed && " · sets its own parallelism"}
          {vertex.keyed && " · keyed state"}
        </span>
      </header>
      <p className="rescale-vertex__facts" data-testid="rescale-max-parallelism">
        {maxParallelismText(vertex.maxParallelism)}
      </p>
      <p className="rescale-vertex__facts">{movesText(vertex)}</p>
      {problems.length > 0 && <Problems problems={problems} />}
      {(vertex.changed || !vertex.restores) && <RescaleBars vertex={vertex} />}
    </section>
  );
});

function Problems({ problems }: { readonly problems: readonly RescaleProblem[] }) {
  return (
    <ul className="rescale-problems">
      {problems.map((problem, index) => (
        <li
          key={index}
          className={`rescale-problem rescale-problem--${problem.severity}`}
          data-testid="rescale-problem"
          data-code={problem.code}
        >
          {problem.message}
        </li>
      ))}
    </ul>
  );
}
