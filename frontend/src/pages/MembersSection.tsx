import { useCallback, useEffect, useState } from "react";

import * as api from "../api/resources";
import { useAccount } from "../store/account";
import { colourOf, initialOf } from "../ui/avatar";
import { ConfirmBox } from "../ui/ConfirmBox";
import { errorText } from "../ui/useResource";
import {
  changesOwnAccess,
  concerns,
  confirmation,
  outcome,
  ROLE_POWERS,
  ROLES,
  roleCounts,
  rowActions,
  type MemberAction,
  type Reader,
} from "./members";

interface Pending {
  readonly action: MemberAction;
  readonly busy: boolean;
  readonly refusal: string | null;
}

function perform(workspace: number, action: MemberAction): Promise<unknown> {
  switch (action.kind) {
    case "change-role":
      return api.changeMemberRole(workspace, action.member.user.id, action.role);
    case "remove":
      return api.removeMember(workspace, action.member.user.id);
    case "leave":
      return api.leaveWorkspace(workspace);
  }
}

/**
 * Who is in the workspace with which role. Owners add members, change roles and remove
 * members; every member may leave. Each change is confirmed in the page first.
 */
export function MembersSection(props: {
  readonly workspace: api.Workspace;
  /** The reader's own role changed: the page reloads their workspaces. */
  readonly onOwnRoleChanged: () => void;
  /** The reader left the workspace, with what to tell them. */
  readonly onLeft: (notice: string) => void;
}) {
  const { workspace } = props;
  const userId = useAccount((state) => state.user?.id ?? null);
  const [members, setMembers] = useState<api.Member[] | null>(null);
  const [username, setUsername] = useState("");
  const [role, setRole] = useState<api.Role>("editor");
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);

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

  if (userId === null) {
    return null;
  }
  const reader: Reader = { userId, role: workspace.role };

  const ask = (action: MemberAction): void => {
    if (confirmation(action, reader, workspace.name) !== null) {
      setError(null);
      setNotice(null);
      setPending({ action, busy: false, refusal: null });
    }
  };

  const confirm = async (action: MemberAction): Promise<void> => {
    setPending({ action, busy: true, refusal: null });
    try {
      await perform(workspace.id, action);
    } catch (caught) {
      setPending({ action, busy: false, refusal: errorText(caught) });
      // The refusal may come from a list gone stale (a role changed elsewhere).
      await reload();
      return;
    }
    setPending(null);
    const done = outcome(action, reader, workspace.name);
    if (action.kind === "leave") {
      props.onLeft(done);
      return;
    }
    // The list first: the notice never says what the list does not show yet.
    await reload();
    setNotice(done);
    if (changesOwnAccess(action, reader)) {
      props.onOwnRoleChanged();
    }
  };

  const box = (action: MemberAction) => {
    const asked = confirmation(action, reader, workspace.name);
    if (asked === null || pending === null) {
      return null;
    }
    return (
      <ConfirmBox
        {...asked}
        busy={pending.busy}
        refusal={pending.refusal}
        onConfirm={() => void confirm(action)}
        onCancel={() => {
          setPending(null);
        }}
      />
    );
  };

  return (
    <section className="members" data-testid="members-section">
      <div className="section-head">
        <h2>Members</h2>
        {members !== null && <span className="muted">{roleCounts(members)}</span>}
      </div>
      <ul className="member-list">
        {members?.map((m) => {
          const actions = rowActions(reader, m);
          const name = m.user.username;
          return (
            <li key={m.user.id} data-testid={`member-${name}`}>
              <div className="member-row">
                <span className="avatar" style={{ background: colourOf(m.user.id) }}>
                  {initialOf(name)}
                </span>
                <span className="member-row__name">
                  {name}
                  {actions.isYou && <span className="muted"> (you)</span>}
                </span>
                {actions.changeRole ? (
                  <select
                    aria-label={`Role of ${name}`}
                    data-testid={`member-role-${name}`}
                    title={ROLE_POWERS[m.role]}
                    value={m.role}
                    disabled={pending !== null}
                    onChange={(event) => {
                      ask({ kind: "change-role", member: m, role: event.target.value as api.Role });
                    }}
                  >
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                ) : (
                  <span className={`role-pill role-pill--${m.role}`} title={ROLE_POWERS[m.role]}>
                    {m.role}
                  </span>
                )}
                {/* An owner's rows keep the slot even when empty, so the role selects line up. */}
                {actions.changeRole && (
                  <span className="member-row__remove">
                    {actions.remove && (
                      <button
                        type="button"
                        className="button button--small button--danger"
                        disabled={pending !== null}
                        data-testid={`member-remove-${name}`}
                        onClick={() => {
                          ask({ kind: "remove", member: m });
                        }}
                      >
                        Remove
                      </button>
                    )}
                  </span>
                )}
              </div>
              {pending !== null && concerns(pending.action, m) && box(pending.action)}
            </li>
          );
        })}
      </ul>
      <ul className="member-roles muted">
        {ROLES.map((r) => (
          <li key={r}>
            <span className={`role-pill role-pill--${r}`}>{r}</span> {ROLE_POWERS[r]}
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
            aria-label="Role of the new member"
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
      <div className="members__leave">
        <button
          type="button"
          className="button button--danger"
          disabled={pending !== null}
          data-testid="leave-workspace"
          onClick={() => {
            ask({ kind: "leave" });
          }}
        >
          Leave workspace
        </button>
        {pending?.action.kind === "leave" && box(pending.action)}
      </div>
      {notice !== null && (
        <p className="notice" role="status" data-testid="members-notice">
          {notice}
        </p>
      )}
      {error !== null && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
