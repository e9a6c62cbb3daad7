// The @workspace outline: a compact folder tree of the workspace's (already filtered) file
// paths, as deep as fits in its budget. Folders that do not fit show how much they hold, so
// the model knows what it is not seeing.

interface Folder {
  readonly folders: Map<string, Folder>;
  readonly files: string[];
  count: number;
}

function newFolder(): Folder {
  return { folders: new Map(), files: [], count: 0 };
}

function treeOf(paths: readonly string[]): Folder {
  const root = newFolder();
  for (const path of paths) {
    const parts = path.split("/").filter(Boolean);
    let folder = root;
    folder.count++;
    for (const part of parts.slice(0, -1)) {
      let next = folder.folders.get(part);
      if (!next) folder.folders.set(part, (next = newFolder()));
      next.count++;
      folder = next;
    }
    if (parts.length > 0) folder.files.push(parts[parts.length - 1]);
  }
  return root;
}

function render(folder: Folder, depth: number, maxDepth: number, maxEntries: number, out: string[]): void {
  const indent = "  ".repeat(depth);
  const folders = [...folder.folders.entries()].sort(([a], [b]) => a.localeCompare(b));
  for (const [name, child] of folders) {
    if (depth + 1 >= maxDepth) {
      out.push(`${indent}${name}/ (${child.count} files)`);
    } else {
      out.push(`${indent}${name}/`);
      render(child, depth + 1, maxDepth, maxEntries, out);
    }
  }
  const files = [...folder.files].sort();
  for (const file of files.slice(0, maxEntries)) out.push(`${indent}${file}`);
  if (files.length > maxEntries) out.push(`${indent}… ${files.length - maxEntries} more files`);
}

/** The deepest rendering of `paths` whose length stays within `maxTokens`. */
export function workspaceOutline(paths: readonly string[], maxTokens: number, count: (text: string) => number): string {
  const root = treeOf(paths);
  let best = `(${paths.length} files)`;
  for (let depth = 1; depth <= 12; depth++) {
    for (const maxEntries of [40, 12, 4]) {
      const out: string[] = [];
      render(root, 0, depth, maxEntries, out);
      const text = out.join("\n");
      // No tokenizer packs more than ~8 characters per token: skip counting what cannot fit.
      if (text.length <= maxTokens * 8 && count(text) <= maxTokens) {
        best = text;
        break;
      }
      if (maxEntries === 4) return best;
    }
  }
  return best;
}
