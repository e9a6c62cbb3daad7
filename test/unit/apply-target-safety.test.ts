// Apply's target check on a real folder with real symbolic links: a link inside the workspace
// that leads outside is refused, so is anything in .git (reached directly or through a link),
// .vscode and *.code-workspace files are asked about first, and ordinary files (also through a link that stays inside) pass.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { judgeTarget } from "../../src/extension/core/apply/target-safety";

describe("Apply target safety", () => {
  let workspace: string;
  let second: string;
  let outside: string;
  const judge = (rel: string, folders = [workspace]) => judgeTarget(join(workspace, rel), workspace, folders, rel);

  before(async () => {
    const base = await mkdtemp(join(tmpdir(), "sc-apply-safety-"));
    workspace = join(base, "workspace");
    second = join(base, "second");
    outside = join(base, "outside");
    await mkdir(join(workspace, "src"), { recursive: true });
    await mkdir(join(workspace, ".git", "hooks"), { recursive: true });
    await mkdir(join(workspace, ".vscode"), { recursive: true });
    await mkdir(second, { recursive: true });
    await mkdir(join(outside, "etc"), { recursive: true });
    await writeFile(join(workspace, "src", "a.ts"), "export const a = 1;\n");
    await writeFile(join(workspace, ".vscode", "tasks.json"), "{}\n");
    await writeFile(join(outside, "secret.txt"), "not yours\n");
    await writeFile(join(workspace, "app.code-workspace"), '{ "folders": [{ "path": "." }] }\n');
    await symlink(join(workspace, "app.code-workspace"), join(workspace, "notes.json"));
    await writeFile(join(second, "b.ts"), "export const b = 1;\n");
    await symlink(join(outside, "secret.txt"), join(workspace, "src", "escape.ts"));
    await symlink(join(outside, "etc"), join(workspace, "linked-dir"));
    await symlink(join(workspace, "src", "a.ts"), join(workspace, "alias.ts"));
    await symlink(join(workspace, ".git", "hooks"), join(workspace, "hooks"));
    await symlink(join(outside, "gone.txt"), join(workspace, "dangling.ts"));
    await symlink(second, join(workspace, "to-second"));
  });

  it("ordinary files pass, existing or new, also through a link that stays inside", async () => {
    assert.deepEqual(await judge("src/a.ts"), { kind: "allowed" });
    assert.deepEqual(await judge("src/new/deep/file.ts"), { kind: "allowed" });
    assert.deepEqual(await judge("alias.ts"), { kind: "allowed" });
    assert.deepEqual(await judge(".gitignore"), { kind: "allowed" }, "only the .git folder itself");
  });

  it("a link inside the workspace that leads outside is refused, for the file and for a new file under a linked folder", async () => {
    const file = await judge("src/escape.ts");
    assert.equal(file.kind, "refused");
    assert.match((file as { reason: string }).reason, /outside the workspace through a symbolic link/);
    assert.equal((await judge("linked-dir/passwd")).kind, "refused");
    assert.equal((await judge("linked-dir/new/file.ts")).kind, "refused");
  });

  it("a link whose destination is missing is refused (writing would create the file where it points)", async () => {
    assert.equal((await judge("dangling.ts")).kind, "refused");
  });

  it("a link into another workspace folder stays in the workspace", async () => {
    assert.equal((await judge("to-second/b.ts")).kind, "refused", "one folder: outside");
    assert.deepEqual(await judge("to-second/b.ts", [workspace, second]), { kind: "allowed" });
  });

  it(".git is refused, by its name in any case, nested, or reached through a link", async () => {
    for (const rel of [".git/config", ".git/hooks/pre-commit", ".GIT/hooks/post-checkout", "vendor/lib/.git/config", "hooks/pre-commit", ".git. /config"]) {
      const verdict = await judge(rel);
      assert.equal(verdict.kind, "refused", rel);
      assert.match((verdict as { reason: string }).reason, /\.git\//, rel);
    }
  });

  it(".vscode asks first", async () => {
    for (const rel of [".vscode/tasks.json", ".vscode/settings.json", ".VSCode/launch.json"]) {
      const verdict = await judge(rel);
      assert.equal(verdict.kind, "confirm", rel);
      assert.match((verdict as { reason: string }).reason, /run commands/, rel);
    }
  });

  it("a .code-workspace file asks first too (it carries settings, tasks and launch configs), by its name in any case or through a link", async () => {
    for (const rel of ["app.code-workspace", "tools/New.Code-Workspace", "app.code-workspace. ", "notes.json"]) {
      const verdict = await judge(rel);
      assert.equal(verdict.kind, "confirm", rel);
      assert.match((verdict as { reason: string }).reason, /workspace file.*tasks.*launch/, rel);
    }
    assert.deepEqual(await judge("docs/code-workspace.md"), { kind: "allowed" });
    const virtual = await judgeTarget("/repo/app.code-workspace", "/repo", ["/repo"], "app.code-workspace", { resolveLinks: false });
    assert.equal(virtual.kind, "confirm");
  });

  it("a virtual workspace's paths (no links to follow) are judged by their folders", async () => {
    const virtual = (rel: string) => judgeTarget(`/repo/${rel}`, "/repo", ["/repo"], rel, { resolveLinks: false });
    assert.deepEqual(await virtual("src/a.ts"), { kind: "allowed" });
    assert.equal((await virtual(".git/config")).kind, "refused");
    assert.equal((await virtual(".vscode/tasks.json")).kind, "confirm");
    assert.equal((await virtual("../etc/passwd")).kind, "refused");
  });

  it("a path outside the folder is refused before anything is resolved", async () => {
    assert.equal((await judgeTarget(join(outside, "secret.txt"), workspace, [workspace], "../outside/secret.txt")).kind, "refused");
  });
});
