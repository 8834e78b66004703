import type { ReactNode } from "react";

import { ElementBadges } from "./badges";
import "./canvas.css";

/** What every box around an operator chain (one JobVertex) has around its own: its badges. */
export function ChainChrome(props: {
  /** The JobVertexID. */
  readonly vertex: string;
  /** The chain's own box. */
  readonly children: ReactNode;
}) {
  return (
    <>
      {props.children}
      <ElementBadges element={{ kind: "chain", vertex: props.vertex }} />
    </>
  );
}
