import { useState, type ReactNode } from "react";

import type { PlanDiff } from "../api/resources";
import { DiagnosticsList, ExecutionGraphChangeList, JobGraphChangeList } from "./PlanChangeLists";
import { SavepointTable } from "./SavepointTable";
import { StreamGraphChangeList } from "./StreamGraphChangeList";
import type { DiffGraph } from "./diffModel";

/**
 * Everything the diff says, beside the canvas: state first, then the three graph levels;
 * and, when the page gives them, the comment threads of both versions on a tab of their own.
 */
export function DiffSidePanel(props: {
  readonly diff: PlanDiff;
  readonly graph: DiffGraph;
  readonly onReveal: (node: number) => void;
  readonly threads?: { readonly open: number | null; readonly panel: ReactNode };
}) {
  const [tab, setTab] = useState<"changes" | "threads">("changes");
  const { threads } = props;
  return (
    <aside className="diff-page__side" data-testid="diff-details">
      {threads !== undefined && (
        <nav className="tabs diff-page__tabs" aria-label="Diff details">
          <button
            type="button"
            className={tab === "changes" ? "tab is-active" : "tab"}
            onClick={() => {
              setTab("changes");
            }}
            data-testid="diff-tab-changes"
          >
            Changes
          </button>
          <button
            type="button"
            className={tab === "threads" ? "tab is-active" : "tab"}
            onClick={() => {
              setTab("threads");
            }}
            data-testid="diff-tab-threads"
          >
            Comments{threads.open !== null && threads.open > 0 ? ` (${threads.open})` : ""}
          </button>
        </nav>
      )}
      {tab === "changes" || threads === undefined ? <DiffDetails {...props} /> : threads.panel}
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
