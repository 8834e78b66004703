import { useMemo } from "react";

import type { RunExecution, RunStatus } from "../api/runs";
import { useRun } from "./context";
import {
  EXECUTED_BY,
  engineRows,
  engineSentence,
  exchangeRows,
  executionSentence,
  noExecutionText,
  stageOrderNote,
  stageRows,
} from "./execution";
import { formatClock, formatDuration } from "./format";

/**
 * How the run executed: one plain sentence, then per edge Flink's planned
 * exchange beside what the executor did with it, then the stages in order.
 */
export function ExecutionSection() {
  const execution = useRun((state) => state.info?.execution ?? null);
  const status = useRun((state) => state.info?.status ?? "QUEUED");
  return (
    <section className="run-execution" data-testid="run-execution">
      <h2 className="run-execution__title">Execution</h2>
      {execution === null ? (
        <p className="muted" data-testid="execution-sentence">
          {noExecutionText(status)}
        </p>
      ) : (
        <ExecutionDetails execution={execution} status={status} />
      )}
    </section>
  );
}

function ExecutionDetails(props: { readonly execution: RunExecution; readonly status: RunStatus }) {
  const { execution, status } = props;
  const vertices = useRun((state) => state.vertices);
  const names = useMemo(
    () => new Map(vertices.map((vertex) => [vertex.id, vertex.name])),
    [vertices],
  );
  const exchanges = exchangeRows(execution);
  const stages = stageRows(execution, names);
  const engines = engineRows(execution, names);
  // A column of reasons only when some vertex ran in Python with one.
  const anyReason = engines.some((row) => row.reason);
  return (
    <>
      <p className="run-execution__sentence" data-testid="execution-sentence">
        {executionSentence(execution)}
      </p>
      <table className="table run-table" data-testid="execution-exchanges">
        <thead>
          <tr>
            <th>Edge</th>
            <th title="The partitioner and result partition type Flink plans">Flink planned</th>
            <th>{EXECUTED_BY[execution.executor]}</th>
            <th>Stages</th>
          </tr>
        </thead>
        <tbody>
          {exchanges.map((row) => (
            <tr
              key={row.edge}
              data-testid={`execution-exchange-${row.edge}`}
              data-handoff={row.handoff}
            >
              <td className="run-table__name" title={`StreamEdge ${row.edge}`}>
                {row.label}
              </td>
              <td className="mono" data-testid={`execution-flink-${row.edge}`}>
                {row.flink}
              </td>
              <td data-testid={`execution-executed-${row.edge}`}>{row.executed}</td>
              <td className="muted">{row.stages}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="run-execution__note muted" data-testid="execution-order">
        {stageOrderNote(execution, status)}
      </p>
      <table className="table run-table" data-testid="execution-stages">
        <thead>
          <tr>
            <th className="num">Stage</th>
            <th>Runs</th>
            <th>Reads stages</th>
            <th>Status</th>
            <th>Start</th>
            <th className="num">Duration</th>
          </tr>
        </thead>
        <tbody>
          {stages.map((row) => (
            <tr
              key={row.number}
              data-testid={`execution-stage-${row.number}`}
              data-status={row.status}
            >
              <td
                className="num"
                title={row.stageId === null ? undefined : `Spark stage ${row.stageId}`}
              >
                {row.number}
              </td>
              <td className="run-table__name" title={row.runs}>
                {row.runs}
              </td>
              <td>{row.reads}</td>
              <td>{row.statusText}</td>
              <td className="mono">{formatClock(row.start)}</td>
              <td className="num">{formatDuration(row.duration)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {engines.length > 0 && (
        <>
          <p className="run-execution__note muted" data-testid="execution-engines-sentence">
            {engineSentence(execution)}
          </p>
          <table className="table run-table" data-testid="execution-engines">
            <thead>
              <tr>
                <th>Vertex</th>
                <th>Ran as</th>
                {anyReason && <th>Why not Spark SQL</th>}
              </tr>
            </thead>
            <tbody>
              {engines.map((row) => (
                <tr
                  key={row.vertex}
                  data-testid={`execution-engine-${row.vertex}`}
                  data-engine={row.engine}
                >
                  <td className="run-table__name" title={row.vertex}>
                    {row.name}
                  </td>
                  <td>{row.ranAs}</td>
                  {anyReason && <td className="muted">{row.reason}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </>
  );
}
