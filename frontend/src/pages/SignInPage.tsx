import { useState } from "react";

import { navigate } from "../app/router";
import { ApiError } from "../api/http";
import { useAccount } from "../store/account";

/** Sign in, or create an account (which comes with a workspace of its own). */
export function SignInPage() {
  const [mode, setMode] = useState<"signin" | "register">("signin");
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const signIn = useAccount((state) => state.signIn);
  const register = useAccount((state) => state.register);

  const submit = async (event: { preventDefault: () => void }): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await (mode === "signin" ? signIn(username, password) : register(username, password));
      navigate({ page: "home", workspace: null }, { replace: true });
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.detail : String(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="signin">
      <form className="signin__card" onSubmit={submit}>
        <h1 className="signin__title">StreamGraph Studio</h1>
        <p className="signin__lead">
          Design Flink dataflows and see, as you edit, the chains, JobGraph and subtasks Flink will
          build from them.
        </p>
        <label className="field">
          <span>Username</span>
          <input
            name="username"
            autoComplete="username"
            value={username}
            onChange={(event) => {
              setUsername(event.target.value);
            }}
            required
            autoFocus
          />
        </label>
        <label className="field">
          <span>Password</span>
          <input
            name="password"
            type="password"
            autoComplete={mode === "signin" ? "current-password" : "new-password"}
            value={password}
            onChange={(event) => {
              setPassword(event.target.value);
            }}
            required
          />
        </label>
        {error !== null && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <button className="button button--primary" type="submit" disabled={busy}>
          {mode === "signin" ? "Sign in" : "Create account"}
        </button>
        <p className="signin__switch">
          {mode === "signin" ? "New here? " : "Have an account? "}
          <button
            type="button"
            className="link-button"
            onClick={() => {
              setMode(mode === "signin" ? "register" : "signin");
              setError(null);
            }}
          >
            {mode === "signin" ? "Create an account" : "Sign in"}
          </button>
        </p>
      </form>
    </main>
  );
}
