import { colourOf, initialOf } from "../ui/avatar";
import { useEditor, useSessionState } from "./context";

/** Avatars shown before the rest are summed up as "+N". */
const SHOWN = 6;

/** Who else has the pipeline open; a click on someone shows what they selected. */
export function PresenceBar() {
  const { selection } = useEditor();
  const you = useSessionState((state) => state.you);
  const others = useSessionState((state) => state.others);
  const all = Object.values(others);
  const entries = all.slice(0, SHOWN);
  const hidden = all.slice(SHOWN);
  return (
    <div className="presence" data-testid="presence">
      {you !== null && (
        <span
          className="avatar avatar--you"
          style={{ background: colourOf(you.user.id) }}
          title={`You (${you.user.username}, ${you.role})`}
        >
          {initialOf(you.user.username)}
        </span>
      )}
      {entries.map((entry) => (
        <button
          type="button"
          key={entry.clientId}
          className="avatar"
          style={{ background: colourOf(entry.user.id) }}
          title={`${entry.user.username} (${entry.role}) — ${entry.selection.nodes.length} selected`}
          data-testid={`presence-${entry.user.username}`}
          onClick={() => {
            if (entry.selection.nodes.length > 0) {
              selection.getState().reveal(entry.selection.nodes);
            }
          }}
        >
          {initialOf(entry.user.username)}
        </button>
      ))}
      {hidden.length > 0 && (
        <span
          className="avatar avatar--more"
          title={hidden.map((entry) => entry.user.username).join(", ")}
          data-testid="presence-more"
        >
          +{hidden.length}
        </span>
      )}
    </div>
  );
}
