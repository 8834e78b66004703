/**
 * Who is signed in. The API token lives in localStorage; the user it belongs to
 * is asked of the server once per page load.
 */

import { create } from "zustand";

import { setUnauthorizedHandler, storedToken, storeToken } from "../api/http";
import * as api from "../api/resources";

interface AccountState {
  /** Undefined while the server is being asked. */
  readonly user: api.User | null | undefined;
  readonly load: () => Promise<void>;
  readonly signIn: (username: string, password: string) => Promise<void>;
  readonly register: (username: string, password: string) => Promise<void>;
  readonly signOut: () => Promise<void>;
  /** The server refused the token: forget it. */
  readonly expire: () => void;
}

export const useAccount = create<AccountState>()((set) => ({
  user: storedToken() === null ? null : undefined,
  load: async () => {
    if (storedToken() === null) {
      set({ user: null });
      return;
    }
    try {
      set({ user: await api.me() });
    } catch {
      storeToken(null);
      set({ user: null });
    }
  },
  signIn: async (username, password) => {
    const { token } = await api.signIn(username, password);
    storeToken(token);
    set({ user: await api.me() });
  },
  register: async (username, password) => {
    const { token, user } = await api.register(username, password);
    storeToken(token);
    set({ user });
  },
  signOut: async () => {
    try {
      await api.signOut();
    } finally {
      storeToken(null);
      set({ user: null });
    }
  },
  expire: () => {
    storeToken(null);
    set({ user: null });
  },
}));

setUnauthorizedHandler(() => {
  useAccount.getState().expire();
});
