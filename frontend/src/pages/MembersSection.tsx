import { useCallback, useEffect, useState } from "react";

import * as api from "../api/resources";
import { colourOf, initialOf } from "../ui/avatar";
import { errorText } from "../ui/useResource";

/** Who is in the workspace with which role; owners add members. */
export function MembersSection({ workspace }: { readonly workspace: api.Workspace }) {
  const [members, setMembers] = useState<api.Member[] | null>(null);
  const [username, setUsername] = useState("");
  const [role, setRole] = useState<api.Role>("editor");
  const [error, setError] = useState<string | null>(null);

  const reload = useCallback(async () => {
    try {
      setMembers(await api.listMembers(workspace.id));
    } catch (caught) {
      setError(errorText(caught));
    }
  }, [workspace.id]);

  useEffect(() => {
    void reload();
  }, [reload]);

  return (
    <section className="members">
      <h2>Members</h2>
      <ul className="member-list">
        {members?.map((m) => (
          <li key={m.user.id}>
            <span className="avatar" style={{ background: colourOf(m.user.id) }}>
              {initialOf(m.user.username)}
            </span>
            {m.user.username} <span className="role-pill">{m.role}</span>
          </li>
        ))}
      </ul>
      {workspace.role === "owner" && (
        <form
          className="inline-form"
          onSubmit={async (event) => {
            event.preventDefault();
            try {
              await api.addMember(workspace.id, username.trim(), role);
              setUsername("");
              setError(null);
              await reload();
            } catch (caught) {
              setError(errorText(caught));
            }
          }}
        >
          <input
            placeholder="Username to add"
            value={username}
            onChange={(event) => {
              setUsername(event.target.value);
            }}
            required
          />
          <select
            value={role}
            onChange={(event) => {
              setRole(event.target.value as api.Role);
            }}
          >
            <option value="viewer">viewer</option>
            <option value="editor">editor</option>
            <option value="owner">owner</option>
          </select>
          <button className="button" type="submit">
            Add member
          </button>
        </form>
      )}
      {error !== null && <p className="form-error">{error}</p>}
    </section>
  );
}
