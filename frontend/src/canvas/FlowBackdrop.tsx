import { Background, Controls } from "@xyflow/react";

/** The dotted grid behind every canvas, and its zoom buttons. */
export function FlowBackdrop() {
  return (
    <>
      <Background gap={20} size={1} />
      <Controls showInteractive={false} />
    </>
  );
}
