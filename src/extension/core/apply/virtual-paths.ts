// The paths of Apply's in-memory documents. An applied change's original (the left side of
// its diff, beside the real file) keeps the file's name, so it is highlighted like the file.
// A fast-apply proposal and the original beside it end in `.txt`: language servers read every
// open document of their language whatever its scheme, so a proposal named `x.ts` had its
// errors (a cut-off rewrite does not parse) listed in the Problems panel as the workspace's.
// As plain text no server reads it. Pure.

export type VirtualKind = "original" | "proposal-original" | "proposal";

/** Kinds no language server may read (their diagnostics would count as the workspace's). */
const PLAIN_TEXT: ReadonlySet<VirtualKind> = new Set(["proposal-original", "proposal"]);

export function virtualPath(kind: VirtualKind, serial: number, fileName: string): string {
  return `/${kind}/${serial}/${fileName}${PLAIN_TEXT.has(kind) ? ".txt" : ""}`;
}
