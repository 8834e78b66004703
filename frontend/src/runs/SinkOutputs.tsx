import { useState } from "react";

import type { SinkOutput } from "../api/runs";
import { useRun, useRunActive, useRunPage } from "./context";
import { formatCount, plural } from "./format";
import { sinksByNode } from "./outcomes";
import { nodeLabel } from "./planFacts";
import { Pager } from "./Pager";
import { pageOf } from "./subtaskRows";

/** Previews open by themselves when a sink has at most this many subtasks. */
const OPEN_UP_TO = 4;
const SINK_PAGE = 32;

/** What each sink received, per subtask: its first records, the count, files written. */
export function SinkOutputs() {
  const { nodeNames } = useRunPage();
  const sinks = useRun((state) => state.info?.sinks ?? []);
  const active = useRunActive();
  if (sinks.length === 0) {
    return (
      <p className="muted" data-testid="sink-empty">
        {active ? "Sink output appears when the run has finished." : "No sink produced output."}
      </p>
    );
  }
  return (
    <div className="sinks" data-testid="sink-outputs">
      {[...sinksByNode(sinks).entries()].map(([node, outputs]) => (
        <SinkNode key={node} label={nodeLabel(nodeNames, node)} node={node} outputs={outputs} />
      ))}
    </div>
  );
}

function SinkNode(props: {
  readonly label: string;
  readonly node: number;
  readonly outputs: readonly SinkOutput[];
}) {
  const { label, node, outputs } = props;
  const [page, setPage] = useState(0);
  const shown = pageOf(outputs, page, SINK_PAGE);
  const records = outputs.reduce((sum, output) => sum + output.records, 0);
  const empty = outputs.filter((output) => output.records === 0).length;
  return (
    <section className="sink" data-testid={`sink-${node}`}>
      <h3 className="sink__title">
        {label}{" "}
        <span className="muted" data-testid={`sink-records-${node}`}>
          {plural(records, "record")} from {plural(outputs.length, "subtask")}
          {empty > 0 && `, ${empty} without any`}
        </span>
      </h3>
      {shown.items.map((output) => (
        <SinkSubtask key={output.subtask} output={output} open={outputs.length <= OPEN_UP_TO} />
      ))}
      <Pager page={shown.page} pages={shown.pages} onPage={setPage}>
        subtasks {shown.offset}–{shown.offset + shown.items.length - 1} of {outputs.length}
      </Pager>
    </section>
  );
}

function SinkSubtask({ output, open }: { readonly output: SinkOutput; readonly open: boolean }) {
  const meta = (
    <>
      subtask {output.subtask} · {formatCount(output.records)} records
      {output.truncated && (
        <span className="muted"> · first {formatCount(output.preview.length)} shown</span>
      )}
      {output.files.length > 0 && (
        <span className="muted"> · {plural(output.files.length, "file")}</span>
      )}
    </>
  );
  if (output.preview.length === 0 && output.files.length === 0) {
    return <div className="sink__subtask sink__subtask--empty muted">{meta}</div>;
  }
  return (
    <details
      className="sink__subtask"
      open={open}
      data-testid={`sink-${output.node}-${output.subtask}`}
    >
      <summary className="sink__meta">{meta}</summary>
      {output.preview.length > 0 && (
        <pre
          className="sink__preview"
          data-testid={`sink-preview-${output.node}-${output.subtask}`}
        >
          {output.preview.join("\n")}
        </pre>
      )}
      {output.files.length > 0 && (
        <ul className="sink__files">
          {output.files.map((file) => (
            <li key={file}>
              <code>{file}</code>
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
