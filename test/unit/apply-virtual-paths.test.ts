// A fast-apply proposal is plain text (no language server reads it, so its errors never reach
// the Problems panel); an applied change's original keeps the file's name and language.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { virtualPath } from "../../src/extension/core/apply/virtual-paths";

describe("Apply's virtual document paths", () => {
  it("a proposal and the original beside it are .txt, still naming the file", () => {
    for (const kind of ["proposal", "proposal-original"] as const) {
      const path = virtualPath(kind, 3, "limits.ts");
      assert.match(path, /\.txt$/, kind);
      assert.ok(path.includes("limits.ts"), kind);
    }
  });

  it("an applied change's original ends with the file's name (highlighted like the file beside it)", () => {
    assert.equal(virtualPath("original", 4, "limits.ts"), "/original/4/limits.ts");
  });

  it("every document has its own path", () => {
    assert.notEqual(virtualPath("proposal", 1, "a.ts"), virtualPath("proposal", 2, "a.ts"));
    assert.notEqual(virtualPath("proposal", 1, "a.ts"), virtualPath("proposal-original", 1, "a.ts"));
  });
});
