import { SHORTCUTS } from "./useShortcuts";

/** The keyboard shortcuts, over the editor; a click anywhere closes it. */
export function ShortcutHelp({ onClose }: { readonly onClose: () => void }) {
  return (
    <div className="help-overlay" role="dialog" aria-label="Keyboard shortcuts" onClick={onClose}>
      <div className="help-overlay__card">
        <h2>Keyboard shortcuts</h2>
        <table className="table">
          <tbody>
            {SHORTCUTS.map(([keys, what]) => (
              <tr key={keys}>
                <td>
                  <kbd>{keys}</kbd>
                </td>
                <td>{what}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
