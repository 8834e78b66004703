import { useEffect } from "react";

import { navigate } from "../app/router";
import { edgeKeyOf } from "../graph/canvas";
import { newsText } from "../reviews/states";
import type { StreamGraphDocument } from "../graph/streamgraph";
import { useStore, type StoreApi } from "../store/hooks";
import type { SelectionStore } from "../store/selection";
import { allEdgeIds } from "./commands";
import type { Notify } from "./notices";
import type { EditorSession } from "./session";

/** Presence goes out at most this often while the selection changes. */
const PRESENCE_DEBOUNCE_MS = 120;

/**
 * Keeps the editor and the server in step: says in words why the server refused
 * an edit, tells the others what is selected here, drops selected elements a
 * co-editor deleted, and says when a co-editor saved a version, started a run,
 * asked for a review or answered one (with a way to the review).
 */
export function useEditorSync(
  session: EditorSession,
  selection: StoreApi<SelectionStore>,
  notify: Notify,
): void {
  const rejection = useStore(session.document, (state) => state.lastRejection);

  useEffect(() => {
    if (rejection === null) {
      return;
    }
    const what =
      rejection.reason === "conflict"
        ? "Someone else changed the same element first, so your edit was not applied; you now see their version."
        : rejection.reason === "forbidden"
          ? "You may not edit this pipeline (viewer role)."
          : "The server refused the edit.";
    notify(`${what} ${rejection.error.message}`);
    session.document.getState().dismissRejection();
  }, [rejection, notify, session]);

  useEffect(
    () =>
      session.state.subscribe((state, previous) => {
        const you = state.you?.user.id;
        const saved = state.versionSaved;
        if (saved !== null && saved !== previous.versionSaved && saved.user.id !== you) {
          const message = saved.message === "" ? "" : `: “${saved.message}”`;
          notify(`${saved.user.username} saved version ${saved.number}${message}`, "info");
        }
        const access = state.accessChanged;
        if (access !== null && access !== previous.accessChanged) {
          notify(
            access.canEdit
              ? `Your role in this workspace is now ${access.you.role}: you can edit.`
              : `Your role in this workspace is now ${access.you.role}: the editor is read-only.`,
            "info",
          );
        }
        const started = state.runStarted;
        if (started !== null && started !== previous.runStarted && started.user.id !== you) {
          notify(
            `${started.user.username} started run #${started.run} of version ${started.version}`,
            "info",
          );
        }
      }),
    [session, notify],
  );

  useEffect(
    () =>
      session.reviews.subscribe((state, previous) => {
        const news = state.news;
        if (news === null || news === previous.news) {
          return;
        }
        const told = newsText(news.message, session.state.getState().you?.user.id ?? null);
        if (told !== null) {
          const review = {
            page: "review",
            pipeline: session.pipelineId,
            version: news.message.version,
          } as const;
          notify(told.text, "info", {
            label: told.forYou ? "Open your review" : "Open the review",
            run: () => {
              navigate(review);
            },
          });
        }
      }),
    [session, notify],
  );

  useEffect(() => {
    let timer: number | null = null;
    const unsubscribe = selection.subscribe((state, previous) => {
      if (state.nodes === previous.nodes && state.edges === previous.edges) {
        return;
      }
      if (timer !== null) {
        window.clearTimeout(timer);
      }
      timer = window.setTimeout(() => {
        const edges = [...state.edges].map(edgeKeyOf).filter((key) => key !== null);
        session.sendPresence({ nodes: [...state.nodes], edges });
      }, PRESENCE_DEBOUNCE_MS);
    });
    return () => {
      unsubscribe();
      if (timer !== null) {
        window.clearTimeout(timer);
      }
    };
  }, [selection, session]);

  // Not a subscription of the editor's render: every edit would render the whole editor.
  useEffect(() => {
    const prune = (document: StreamGraphDocument | null): void => {
      const { nodes, edges } = selection.getState();
      if (document === null || (nodes.size === 0 && edges.size === 0)) {
        return;
      }
      const nodeIds = new Set(document.nodes.map((n) => n.id));
      const keptNodes = [...nodes].filter((id) => nodeIds.has(id));
      const edgeIds = edges.size === 0 ? null : new Set(allEdgeIds(document));
      const keptEdges = [...edges].filter((id) => edgeIds?.has(id) === true);
      if (keptNodes.length !== nodes.size || keptEdges.length !== edges.size) {
        selection.getState().select(keptNodes, keptEdges);
      }
    };
    prune(session.document.getState().document);
    return session.document.subscribe((state, previous) => {
      if (state.document !== previous.document) {
        prune(state.document);
      }
    });
  }, [session, selection]);
}
