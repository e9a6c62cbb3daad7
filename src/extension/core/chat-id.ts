// A chat's id names its files on disk (its transcript, KV snapshot and tombstone) and comes back
// from places the host does not control: a webview's saved state, workspace state. One guard for
// all of them, at the boundary and again in each store, so `../../x` never becomes a path.
// New ids are UUIDs.

const CHAT_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function isChatId(value: unknown): value is string {
  return typeof value === "string" && CHAT_ID.test(value);
}

/** The id, or an error naming it: a store refuses to turn anything else into a file name. */
export function checkedChatId(id: string): string {
  if (!CHAT_ID.test(id)) throw new Error(`not a chat id: ${JSON.stringify(id.slice(0, 80))}`);
  return id;
}
