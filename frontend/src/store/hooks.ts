/**
 * How code outside `store/` reads the stores and names their type. zustand is
 * this folder's own business (an ESLint rule keeps it here): the rest of the
 * app takes these, so what the stores are built with can change in one place.
 */

export { useStore, type StoreApi } from "zustand";
export { useShallow } from "zustand/react/shallow";
