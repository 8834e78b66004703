const AVATAR_COLOURS = ["#2563eb", "#db2777", "#059669", "#d97706", "#7c3aed", "#0891b2"];

/** A stable colour per user, the same in every view. */
export function colourOf(userId: number): string {
  return AVATAR_COLOURS[userId % AVATAR_COLOURS.length] ?? "#2563eb";
}

export function initialOf(username: string): string {
  return username.slice(0, 1).toUpperCase();
}
