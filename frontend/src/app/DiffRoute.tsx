import type { VersionRef } from "../api/resources";
import { DiffPage } from "../versions/DiffPage";
import { navigate } from "./router";

/** The diff page as a route: closing it goes back to the pipeline's editor. */
export default function DiffRoute(props: {
  readonly pipelineId: number;
  readonly from: VersionRef;
  readonly to: VersionRef;
}) {
  return (
    <DiffPage
      pipelineId={props.pipelineId}
      from={props.from}
      to={props.to}
      onClose={() => {
        navigate({ page: "editor", pipeline: props.pipelineId });
      }}
    />
  );
}
