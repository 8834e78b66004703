import { useCallback } from "react";

import { listWorkspaces } from "../api/resources";
import { useAccount } from "../store/account";
import { useResource } from "../ui/useResource";
import type { Viewer } from "./threads";

/**
 * Who looks at a pipeline of `workspaceId` on a page without the editor's socket (the
 * review and diff pages): the signed-in account with its role there; null until known.
 */
export function useWorkspaceViewer(workspaceId: number | null): Viewer | null {
  const user = useAccount((state) => state.user ?? null);
  const load = useCallback(() => listWorkspaces(), []);
  const { data } = useResource(load, String(workspaceId));
  const role = data?.find((workspace) => workspace.id === workspaceId)?.role ?? null;
  return user === null || role === null ? null : { user, role };
}
