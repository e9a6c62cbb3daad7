// VS Code's own Chat view as agent-requests.ts drives it in code-server: open it, put it in Agent
// mode, pick our model, ask, start a new chat, open a file in an editor. The selectors are the
// e2e suite's (test/e2e/vscode-chat.test.ts) where it has them; the mode picker is the Chat
// input's dropdown labelled with the mode's name (ModePickerActionItem, which runs
// workbench.action.chat.toggleAgentMode with the mode's id), absent where only one mode exists
// (the built-in Chat without Copilot has only Agent mode).

import type { Page } from "playwright-core";
import { poll, runFromPalette } from "../e2e/support/workbench";

const MODE_LABEL = /^\s*(Agent|Ask|Edit|Plan)\s*$/;

export class AgentChatView {
  constructor(
    private readonly page: Page,
    private readonly log: (line: string) => void,
  ) {}

  private chatInput() {
    return this.page.locator(".part.auxiliarybar .interactive-input-part .monaco-editor").first();
  }

  /** The Chat view's responses (in the secondary side bar, not a chat editor). */
  responses() {
    return this.page.locator(".part.auxiliarybar .interactive-item-container.interactive-response");
  }

  /** The last response's text, or "" when there is none yet. */
  lastResponseText(): Promise<string> {
    return this.responses().last().innerText({ timeout: 5_000 }).catch(() => "");
  }

  async open(): Promise<void> {
    await runFromPalette(this.page, "Chat: Open Chat");
    await this.chatInput().waitFor({ timeout: 120_000 });
  }

  /** Agent mode: chosen in the mode picker when there is one; without one the Chat view has only Agent mode. */
  async agentMode(): Promise<void> {
    const picker = this.page.locator(".part.auxiliarybar .chat-input-toolbars .action-label").filter({ hasText: MODE_LABEL }).first();
    if (!(await picker.isVisible().catch(() => false))) {
      this.log("no mode picker in the Chat input: this Chat view has only Agent mode");
      return;
    }
    const current = ((await picker.textContent()) ?? "").trim();
    if (current === "Agent") {
      this.log("the Chat view is in Agent mode");
      return;
    }
    await picker.click({ timeout: 30_000 });
    await this.page.locator(".action-widget .monaco-list-row", { hasText: /^\s*Agent\b/ }).first().click({ timeout: 30_000 });
    await poll("Agent mode", async () => ((await picker.textContent().catch(() => "")) ?? "").trim(), (label) => label === "Agent", 30_000);
    this.log(`switched the Chat view from ${current} to Agent mode`);
  }

  /** The picker lists the models resolved when it opens: reopened until `name` is in it. */
  async pickModel(name: string): Promise<void> {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const picker = this.page.locator(".chat-input-toolbars .action-label").filter({ hasText: new RegExp(`^(Auto|${escaped}.*)$`) }).first();
    // The picker's rows; not the Chat view's own list, whose requests and responses (a chat
    // restored after a window reload) may name the model too.
    const ours = this.page.locator(".action-widget .monaco-list-row, .monaco-list-row:not(.request):not(.response)", { hasText: name }).first();
    const deadline = Date.now() + 120_000;
    for (;;) {
      await picker.click({ timeout: 60_000 });
      try {
        await ours.waitFor({ timeout: 5_000 });
        break;
      } catch (error) {
        await this.page.keyboard.press("Escape");
        if (Date.now() > deadline) throw error;
      }
    }
    await ours.click();
  }

  /** Replaces the chat input's text and sends it. */
  async ask(text: string): Promise<void> {
    await this.chatInput().click();
    await this.page.keyboard.press("Control+A");
    await this.page.keyboard.type(text);
    await this.page.keyboard.press("Enter");
  }

  /** A new conversation: the Chat view's own New Chat action, or the palette's. */
  async newChat(): Promise<void> {
    const action = this.page.locator('.part.auxiliarybar .action-label[aria-label^="New Chat"]:not([aria-label^="New Chat in Side Bar"])').first();
    if (await action.isVisible().catch(() => false)) await action.click({ timeout: 30_000 });
    else await runFromPalette(this.page, "Chat: New Chat");
    await poll("an empty chat", () => this.responses().count(), (n) => n === 0, 60_000);
  }

  /** Opens a workspace file in an editor (Quick Open), so the next request's open editors differ. */
  async openFile(name: string, shows: string): Promise<void> {
    await this.page.keyboard.press("Control+P");
    const input = this.page.locator(".quick-input-widget input");
    await input.waitFor({ timeout: 30_000 });
    await input.fill(name);
    await this.page.locator(".quick-input-list .monaco-list-row", { hasText: name }).first().waitFor({ timeout: 30_000 });
    await input.press("Enter");
    await this.page.locator(".monaco-editor .view-lines", { hasText: shows }).first().waitFor({ timeout: 60_000 });
  }

  /**
   * Clicks a tool confirmation's Allow (or Continue) in the Chat view, so a tool call the model
   * makes runs and its result comes back as a request; true when one was clicked.
   */
  async approveToolCall(): Promise<boolean> {
    const button = this.page.locator(".part.auxiliarybar .interactive-item-container .monaco-button", { hasText: /^\s*(Allow|Continue)\s*$/ }).first();
    if (!(await button.isVisible().catch(() => false))) return false;
    await button.click({ timeout: 5_000 }).catch(() => undefined);
    this.log("allowed a tool call");
    return true;
  }
}
