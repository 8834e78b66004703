/** What the problems panel says, without React. */

/**
 * The panel's text when it lists no problem. A pipeline without operators has none to
 * report, and Flink would refuse to run it ("No operators defined in streaming
 * topology"), so it says how to start instead of promising what Flink will run.
 */
export function noProblemsText(operatorCount: number): string {
  return operatorCount === 0
    ? "The pipeline is empty: drag a source from the palette onto the canvas, then the operators it feeds."
    : "No problems: this is what Flink will run.";
}
