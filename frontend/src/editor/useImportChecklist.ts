import { useCallback } from "react";

import { getPlan, type CompiledPlan, type ImportChecklist } from "../api/resources";
import { useResource } from "../ui/useResource";
import { useDocumentStore, useEditor } from "./context";

/** `meta.importedFrom` of a pipeline imported from Flink's plan JSON (`runtime/imported.py`). */
const IMPORTED_FROM_FLINK_PLAN = "flink-execution-plan";

/** How long the checklist waits after an edit before it is fetched again. */
const REFRESH_DELAY_MS = 400;

/**
 * The plan requests in flight or answered, by pipeline and revision: the checklist panel
 * and the inspector ask for the same revision and share one request. Two entries are
 * enough (the revision shown and the one being fetched).
 */
const requests = new Map<string, Promise<CompiledPlan>>();
const KEPT_REQUESTS = 2;

function sharedPlan(pipelineId: number, key: string): Promise<CompiledPlan> {
  let request = requests.get(key);
  if (request === undefined) {
    // Not aborted with either reader: the other may still want the answer.
    request = getPlan(pipelineId);
    request.catch(() => {
      requests.delete(key);
    });
    requests.set(key, request);
    for (const old of requests.keys()) {
      if (requests.size <= KEPT_REQUESTS) {
        break;
      }
      requests.delete(old);
    }
  }
  return request;
}

/**
 * What an imported pipeline still needs before it runs, for the working copy as it is now
 * (refetched a moment after each edit); null for a pipeline not imported from Flink's plan
 * JSON, which never compiles a REST plan for it.
 */
export function useImportChecklist(): ImportChecklist | null {
  const { session } = useEditor();
  const revision = useDocumentStore((state) => state.revision);
  const imported = useDocumentStore(
    (state) => state.document?.meta?.importedFrom === IMPORTED_FROM_FLINK_PLAN,
  );
  const pipelineId = session.pipelineId;
  const key = `${pipelineId}@${revision}`;
  const load = useCallback(
    async (signal: AbortSignal): Promise<ImportChecklist | null> => {
      if (!imported) {
        return null;
      }
      const plan = await sharedPlan(pipelineId, key);
      signal.throwIfAborted();
      return plan.importChecklist;
    },
    [pipelineId, imported, key],
  );
  const { data } = useResource(
    load,
    imported ? key : `${pipelineId}:not-imported`,
    REFRESH_DELAY_MS,
  );
  return imported ? data : null;
}
