import type { ReviewState } from "../api/reviews";
import { stateHelp, stateText } from "./states";
import "./reviews.css";

/** A version's review state as a chip: draft, in review, changes requested, approved... */
export function ReviewChip(props: {
  readonly state: ReviewState;
  readonly detail?: string;
  readonly testId?: string;
}) {
  const help = stateHelp(props.state);
  return (
    <span
      className={`review-chip review-chip--${props.state}`}
      title={props.detail === undefined ? help : `${help} ${props.detail}`}
      data-testid={props.testId}
      data-state={props.state}
    >
      {stateText(props.state)}
    </span>
  );
}
