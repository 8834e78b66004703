import { memo } from "react";

import { CopyId, shortId } from "../ui/CopyId";
import { plural, spanText, type ExecutionVertexView } from "./executionModel";
import { SubtaskTree } from "./SubtaskTree";
import { WiringTree } from "./WiringTree";

/** One ExecutionJobVertex: result partitions, wiring of its inputs, and its subtasks. */
export const ExecutionVertexSection = memo(function ExecutionVertexSection(props: {
  readonly view: ExecutionVertexView;
}) {
  const { vertex, inputs, outputs, slotSharingGroupName } = props.view;
  return (
    <section className="ev-section" data-testid={`exec-vertex-${vertex.id}`}>
      <header className="ev-section__header">
        <h3 className="ev-section__name">{vertex.name}</h3>
        <CopyId id={vertex.id} label="JobVertexID" />
        <span className="muted">
          {plural(vertex.parallelism, "subtask")} · max parallelism {vertex.maxParallelism} (key
          groups 0–{vertex.maxParallelism - 1})
          {slotSharingGroupName !== null && ` · slot sharing group ${slotSharingGroupName}`}
        </span>
      </header>
      {outputs.length > 0 && (
        <div className="ev-section__part">
          <h4>Result partitions</h4>
          <ul className="ev-list">
            {outputs.map((output) => (
              <li key={output.dataSet}>
                data set <CopyId id={output.dataSet} label="IntermediateDataSetID" /> ·{" "}
                {output.resultPartitionType} · {plural(vertex.parallelism, "partition")}{" "}
                <code>
                  {shortId(output.dataSet)}#{spanText([0, vertex.parallelism - 1])}
                </code>{" "}
                → {output.consumers.map((consumer) => consumer.name).join(", ") || "no consumer"}
              </li>
            ))}
          </ul>
        </div>
      )}
      {inputs.length > 0 && (
        <div className="ev-section__part">
          <h4>Inputs</h4>
          <ul className="ev-list">
            {inputs.map((input, index) => (
              <WiringTree key={index} input={input} />
            ))}
          </ul>
        </div>
      )}
      <div className="ev-section__part">
        <h4>Subtasks</h4>
        <SubtaskTree view={props.view} />
      </div>
    </section>
  );
});
