import { useCallback } from "react";

import { ApiError } from "../api/http";
import {
  checkSavepoint,
  PLAN_NOT_COMPILED,
  type CheckQuery,
  type RestoreCheck,
} from "../api/savepoints";
import { useResource, type Resource } from "../ui/useResource";

/** How long the check waits after an edit of the working copy before it is asked again. */
const REFRESH_DELAY_MS = 400;

/** The check, or the server's word that there is no job to check (409). */
export type CheckAnswer =
  | { readonly kind: "check"; readonly check: RestoreCheck }
  | { readonly kind: "not-compiled"; readonly message: string };

/**
 * The restore check of `query.checked` against savepoint `savepoint` (null: none picked),
 * asked again a moment after the working copy's revision moves when it is what is checked;
 * a request an edit overtakes is aborted.
 */
export function useRestoreCheck(
  pipelineId: number,
  savepoint: number | null,
  query: CheckQuery,
  revision: number,
): Resource<CheckAnswer | null> {
  const { checked, allowNonRestoredState, rescale } = query;
  const vertex = rescale?.vertex;
  const parallelism = rescale?.parallelism;
  const load = useCallback(
    async (signal: AbortSignal): Promise<CheckAnswer | null> => {
      if (savepoint === null) {
        return null;
      }
      try {
        const check = await checkSavepoint(
          pipelineId,
          savepoint,
          {
            checked,
            allowNonRestoredState,
            ...(parallelism === undefined
              ? {}
              : { rescale: { parallelism, ...(vertex === undefined ? {} : { vertex }) } }),
          },
          signal,
        );
        return { kind: "check", check };
      } catch (error) {
        if (error instanceof ApiError && error.code === PLAN_NOT_COMPILED) {
          return { kind: "not-compiled", message: error.message };
        }
        throw error;
      }
    },
    [pipelineId, savepoint, checked, allowNonRestoredState, vertex, parallelism],
  );
  const at = checked === "working" ? `working@${revision}` : `version ${checked}`;
  return useResource(
    load,
    `${pipelineId}:${String(savepoint)}:${at}:${String(allowNonRestoredState)}:${vertex ?? "job"}:${String(parallelism)}`,
    REFRESH_DELAY_MS,
  );
}
