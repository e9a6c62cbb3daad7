// A context file is capped by bytes before it is read (issue 39, item 5): `@dump.sql` at
// gigabytes is refused from its size alone, with a reason its skipped chip shows, instead of
// being read, decoded and scanned in the extension host (a pinned one on every refresh).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { MAX_CONTEXT_FILE_BYTES, readFileVerdict } from "../../src/extension/shell/context/file-checks";

const root = mkdtempSync(join(tmpdir(), "context-size-"));
after(() => rmSync(root, { recursive: true, force: true }));

describe("context files: a size cap before reading", () => {
  it("a text file one byte over the cap is refused with its size and the cap; one at the cap is read", async () => {
    const over = join(root, "over.sql");
    writeFileSync(over, "a".repeat(MAX_CONTEXT_FILE_BYTES + 1));
    assert.deepEqual(await readFileVerdict(over), { ok: false, reason: "over the 1 MB limit for context files (1.0 MB)" });
    const at = join(root, "at.sql");
    writeFileSync(at, "b".repeat(MAX_CONTEXT_FILE_BYTES));
    const verdict = await readFileVerdict(at);
    assert.equal(verdict.ok && verdict.text.length, MAX_CONTEXT_FILE_BYTES);
  });

  it("a 3 GB file (sparse) is refused from its size, at once, without being read", async () => {
    const dump = join(root, "dump.sql");
    writeFileSync(dump, "");
    truncateSync(dump, 3 * 1024 ** 3);
    // The reason names the size from stat; a read would have failed otherwise (3 GB is past the
    // longest string V8 can hold), so the verdict alone shows it was not read. Not timed.
    assert.deepEqual(await readFileVerdict(dump), { ok: false, reason: "over the 1 MB limit for context files (3.0 GB)" });
  });

  it("a named pipe is refused without opening it (reading one would wait for a writer forever)", { timeout: 5_000 }, async () => {
    const pipe = join(root, "pipe.txt");
    execFileSync("mkfifo", [pipe]);
    assert.deepEqual(await readFileVerdict(pipe), { ok: false, reason: "not a regular file" });
  });

  it("folders and missing files keep their reasons", async () => {
    assert.deepEqual(await readFileVerdict(root), { ok: false, reason: "a folder, not a file" });
    assert.deepEqual(await readFileVerdict(join(root, "gone.ts")), { ok: false, reason: "file no longer exists" });
  });
});
