// One model shared by every panel that uses it; the last panel to close frees it.

import * as assert from "node:assert/strict";
import { after, describe, it } from "mocha";
import { api, closeAllPanels, newChat, turn, waitFor } from "./helpers";

describe("engine lifecycle", () => {
  after(closeAllPanels);

  it("panels share one loaded model and the last one to close frees it", async () => {
    await closeAllPanels();
    const testing = await api();
    const a = await newChat();
    const b = await newChat();
    await turn(a, "Hi");
    await turn(b, "Hello");
    assert.equal(testing.loadedEngines(), 1, "one engine for two panels");
    a.close();
    await waitFor("panel a closed", () => testing.panels().length === 1);
    assert.equal(testing.loadedEngines(), 1, "still used by panel b");
    b.close();
    await waitFor("the model freed", () => testing.loadedEngines() === 0, 30_000);
  });
});
