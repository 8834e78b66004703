import { ROLE_VALUES } from "../api/generated/wire";
import type { Role } from "../api/resources";
import type { Viewer } from "../reviews/threads";
import { useSessionState } from "./context";

function roleOf(role: string): Role | null {
  return ROLE_VALUES.find((known) => known === role) ?? null;
}

/** Who looks at the pipeline, as the server's snapshot says: account and role. */
export function useViewer(): Viewer | null {
  const you = useSessionState((state) => state.you);
  const role = you === null ? null : roleOf(you.role);
  return you === null || role === null ? null : { user: you.user, role };
}
