// "Stateful Chat: New Chat" opens a chat webview panel (a tab of our view type).

import * as assert from "node:assert/strict";
import { afterEach, describe, it } from "mocha";
import { api, chatTabs, closeAllPanels, newChat, waitFor } from "./helpers";

describe("New Chat", () => {
  afterEach(closeAllPanels);

  it("opens a webview panel with the chat view type", async () => {
    const tabsBefore = chatTabs().length;
    const panel = await newChat();
    await waitFor("a chat tab", () => chatTabs().length === tabsBefore + 1);
    assert.equal(panel.busy, false);
    assert.equal((await api()).panels().length, 1);
  });

  it("opens one more panel each time", async () => {
    await newChat();
    await newChat();
    await waitFor("two chat tabs", () => chatTabs().length === 2);
  });
});
