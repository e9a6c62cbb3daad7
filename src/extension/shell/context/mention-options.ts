// The @-completion list: the keywords first when they match, then workspace files ranked by
// the fuzzy scorer over the cached index.

import { scorePath } from "../../core/context-ranking";
import type { MentionOption } from "../../../webview/protocol/messages";
import type { WorkspaceFileIndex } from "./workspace-files";

const KEYWORDS: readonly MentionOption[] = [
  { value: "problems", label: "@problems", detail: "errors and warnings in the workspace", kind: "keyword" },
  { value: "selection", label: "@selection", detail: "the selection in the editor", kind: "keyword" },
  { value: "open", label: "@open", detail: "the files open in editors", kind: "keyword" },
  { value: "workspace", label: "@workspace", detail: "a compact folder tree", kind: "keyword" },
];

const MAX_MENTION_OPTIONS = 20;

export async function mentionOptions(query: string, files: WorkspaceFileIndex): Promise<MentionOption[]> {
  const keywords = KEYWORDS.filter((k) => query === "" || (k.value.startsWith(query.toLowerCase()) && scorePath(query, k.value) >= 0));
  const paths = await files.complete(query, MAX_MENTION_OPTIONS - keywords.length);
  return [
    ...keywords,
    ...paths.map((path): MentionOption => {
      const slash = path.lastIndexOf("/");
      return { value: path, label: path.slice(slash + 1), detail: slash > 0 ? path.slice(0, slash) : undefined, kind: "file" };
    }),
  ];
}
