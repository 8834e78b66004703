import { ReviewPage } from "../reviews/ReviewPage";

/** A version's review as a route, loaded with the canvas library when first opened. */
export default function ReviewRoute(props: {
  readonly pipelineId: number;
  readonly version: number;
}) {
  return <ReviewPage pipelineId={props.pipelineId} version={props.version} />;
}
