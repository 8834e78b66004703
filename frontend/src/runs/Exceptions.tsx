import { useRun, useRunPage } from "./context";
import { formatClock } from "./format";
import { failedAttempts, runError } from "./outcomes";
import { nodeLabel } from "./planFacts";

/** The run's error and every failed attempt, newest first, like Flink's exceptions tab. */
export function Exceptions() {
  const { view, nodeNames } = useRunPage();
  const error = useRun((state) => (state.info === null ? null : runError(state.info)));
  const vertices = useRun((state) => state.vertices);
  const subtasks = useRun((state) => state.subtasks);
  const failed = failedAttempts(vertices, subtasks);
  if (error === null && failed.length === 0) {
    return <p className="muted">No failures.</p>;
  }
  return (
    <div className="exceptions" data-testid="exceptions">
      {error !== null && (
        <section>
          <h3>Run error</h3>
          <pre className="run-error">{error}</pre>
        </section>
      )}
      {failed.length > 0 && <h3>Failed attempts</h3>}
      {failed.map((item) => {
        const node = item.node;
        return (
          <section
            key={`${item.vertex}-${item.subtask}-${item.attempt}`}
            className="exception"
            data-testid={`exception-${item.subtask}-${item.attempt}`}
          >
            <div className="exception__head">
              <button
                type="button"
                className="link-button"
                onClick={() => {
                  view.getState().selectVertex(item.vertex, { focus: true });
                }}
              >
                {item.vertexName}
              </button>{" "}
              subtask {item.subtask}, attempt {item.attempt}
              {node !== null && <> · {nodeLabel(nodeNames, node)}</>}
              <span className="muted"> · {formatClock(item.time)}</span>
              {item.retried && <span className="exception__retried">retried</span>}
            </div>
            <pre className="run-error">{item.error}</pre>
          </section>
        );
      })}
    </div>
  );
}
