import type { PlanDiff } from "../api/resources";
import { DiagnosticsList, ExecutionGraphChangeList, JobGraphChangeList } from "./PlanChangeLists";
import { SavepointTable } from "./SavepointTable";
import { StreamGraphChangeList } from "./StreamGraphChangeList";
import type { DiffGraph } from "./diffModel";

/** Everything the diff says, beside the canvas: state first, then the three graph levels. */
export function DiffSidePanel(props: {
  readonly diff: PlanDiff;
  readonly graph: DiffGraph;
  readonly onReveal: (node: number) => void;
}) {
  return (
    <aside className="diff-page__side" data-testid="diff-details">
      <DiffDetails {...props} />
    </aside>
  );
}

/** The sections of `DiffSidePanel`, for a page that lays them out itself (the review page). */
export function DiffDetails(props: {
  readonly diff: PlanDiff;
  readonly graph: DiffGraph;
  readonly onReveal: (node: number) => void;
}) {
  const { diff, graph, onReveal } = props;
  return (
    <>
      <section>
        <h2>Savepoint compatibility</h2>
        {diff.savepoint === null ? (
          <p className="muted">Both versions must compile to compare their state.</p>
        ) : (
          <SavepointTable savepoint={diff.savepoint} onReveal={onReveal} />
        )}
      </section>
      <section>
        <h2>StreamGraph</h2>
        <StreamGraphChangeList changes={diff.streamGraph} graph={graph} onReveal={onReveal} />
      </section>
      <section>
        <h2>JobGraph</h2>
        {diff.jobGraph === null ? (
          <p className="muted">Both versions must compile to compare their JobGraphs.</p>
        ) : (
          <JobGraphChangeList changes={diff.jobGraph} onReveal={onReveal} />
        )}
      </section>
      <section>
        <h2>ExecutionGraph</h2>
        {diff.executionGraph === null ? (
          <p className="muted">Both versions must compile to compare their ExecutionGraphs.</p>
        ) : (
          <ExecutionGraphChangeList changes={diff.executionGraph} />
        )}
      </section>
      <DiagnosticsList diagnostics={diff.diagnostics} />
    </>
  );
}
