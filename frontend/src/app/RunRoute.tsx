import { RunPage } from "../runs/RunPage";

/** The run monitor as a route, loaded with the canvas library when first opened. */
export default function RunRoute(props: { readonly pipelineId: number; readonly runId: number }) {
  return <RunPage pipelineId={props.pipelineId} runId={props.runId} />;
}
