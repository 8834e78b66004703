import { memo } from "react";

import type { RescaledVertex, RescaleProblem, RescaleSimulation } from "../api/resources";
import type { Edit } from "../graph/edits";
import { CopyId } from "../ui/CopyId";
import { RescaleBars } from "./RescaleBars";
import {
  countText,
  maxParallelismText,
  movesText,
  pageText,
  parallelismText,
  problemsElsewhere,
  problemsOf,
  unlistedProblemsText,
  verdictText,
} from "./rescaleModel";

/** What a rescale does: the verdict, slots, problems, the pin, and per vertex of the page
 * its bars. */
export function RescaleResult(props: {
  readonly simulation: RescaleSimulation;
  /** The pin may be applied: an editor looking at the working copy. */
  readonly canPin: boolean;
  readonly onPin: (edits: readonly Edit[]) => void;
  /** Describe the vertices from this one on (by topological place). */
  readonly onPage: (offset: number) => void;
}) {
  const { simulation, canPin, onPin, onPage } = props;
  const general = problemsOf(simulation, null);
  const elsewhere = problemsElsewhere(simulation);
  const unlisted = unlistedProblemsText(simulation);
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
      {elsewhere.length > 0 && (
        <section className="rescale-elsewhere" data-testid="rescale-elsewhere">
          <h3>On other pages</h3>
          <ul className="rescale-problems">
            {elsewhere.map(({ problem, vertexName, offset }, index) => (
              <li
                key={index}
                className={`rescale-problem rescale-problem--${problem.severity}`}
                data-testid="rescale-problem"
                data-code={problem.code}
              >
                {problem.message}{" "}
                <button
                  type="button"
                  className="link-button"
                  onClick={() => {
                    onPage(offset);
                  }}
                >
                  Show {vertexName}
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      {unlisted !== null && (
        <p className="muted" data-testid="rescale-unlisted">
          {unlisted}
        </p>
      )}
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
      <Pager simulation={simulation} onPage={onPage} testId="rescale-pager" />
      {simulation.vertices.map((vertex) => (
        <VertexSection
          key={vertex.id}
          vertex={vertex}
          problems={problemsOf(simulation, vertex.id)}
        />
      ))}
      {simulation.vertices.length > 4 && (
        <Pager simulation={simulation} onPage={onPage} testId="rescale-pager-bottom" />
      )}
    </>
  );
}

/** Which vertices are described, and the way to the others. */
function Pager(props: {
  readonly simulation: RescaleSimulation;
  readonly onPage: (offset: number) => void;
  readonly testId: string;
}) {
  const { page, vertices } = props.simulation;
  const text = pageText(page, vertices.length);
  if (text === null) {
    return null;
  }
  const { onPage, testId } = props;
  return (
    <nav className="rescale-pager" aria-label="Vertices described" data-testid={testId}>
      <button
        type="button"
        disabled={page.offset === 0}
        onClick={() => {
          onPage(Math.max(0, page.offset - page.limit));
        }}
      >
        Previous
      </button>
      <span>{text}</span>
      <button
        type="button"
        disabled={page.offset + page.limit >= page.total}
        onClick={() => {
          onPage(page.offset + page.limit);
        }}
      >
        Next
      </button>
    </nav>
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
