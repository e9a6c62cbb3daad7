// Which shared libraries a process tree has mapped (Linux, /proc/<pid>/maps): the e2e suite's
// proof that the engine under code-server runs llama.cpp from the installed VSIX (not from the
// source tree's node_modules, which a missing package would silently fall back to), and which
// GPU backend or CPU variant ggml chose. Only the server's descendants count: a bench or a
// llama-server elsewhere on the machine maps the same library names.

import { readdirSync, readFileSync } from "node:fs";

const PATH_COLUMN = /\s(\/\S.*)$/;

function parentOf(pid: number): number | undefined {
  try {
    // The command name (field 2) is in parentheses and may hold spaces: the fields after its last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[1]);
  } catch {
    return undefined;
  }
}

/** `root` and every process below it. */
export function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const parent = parentOf(Number(name));
    if (parent !== undefined) parents.set(Number(name), parent);
  }
  const tree = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, parent] of parents) {
      if (!tree.has(pid) && tree.has(parent)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return [...tree];
}

/** Paths of the mapped files whose name matches `name`, in the process tree under `root`. */
export function mappedLibraries(root: number, name: RegExp): string[] {
  const found = new Set<string>();
  for (const pid of processTree(root)) {
    let maps: string;
    try {
      maps = readFileSync(`/proc/${pid}/maps`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    for (const line of maps.split("\n")) {
      const path = PATH_COLUMN.exec(line)?.[1];
      if (path && name.test(path.slice(path.lastIndexOf("/") + 1))) found.add(path);
    }
  }
  return [...found].sort();
}
