// Watchers that run inside the chat webview itself. Polling from the test process can miss a
// whole reply on a fast machine (a 135M model writes hundreds of tokens per second), so the
// webview records every change of the streaming reply, and presses Stop the moment the reply
// has text: both hold whatever the machine's speed, with no timing assumptions.
// (The callbacks are self-contained: they are serialized into the webview, whose CSP forbids
// eval, so they cannot share a helper.)

import type { FrameLocator } from "playwright-core";

declare global {
  interface Window {
    statefulChatTestLengths?: number[];
  }
}

const OBSERVE: MutationObserverInit = { subtree: true, childList: true, characterData: true, attributes: true };

/** Starts recording the streaming reply's text length after every DOM change. */
export async function recordStreamingLengths(chat: FrameLocator): Promise<void> {
  await chat.locator("body").evaluate((body, options) => {
    const lengths: number[] = [];
    window.statefulChatTestLengths = lengths;
    new MutationObserver(() => {
      const replies = document.querySelectorAll('[data-testid="entry"][data-role="assistant"]');
      const last = replies[replies.length - 1];
      if (!last || last.getAttribute("data-status") !== "streaming") return;
      const length = (last.querySelector(".entry-body")?.textContent ?? "").length;
      if (length > 0 && lengths[lengths.length - 1] !== length) lengths.push(length);
    }).observe(body, options);
  }, OBSERVE);
}

export async function recordedLengths(chat: FrameLocator): Promise<number[]> {
  return chat.locator("body").evaluate(() => window.statefulChatTestLengths ?? []);
}

/** Clicks [data-testid=stop] as soon as the next reply has streamed some text. */
export async function stopOnFirstText(chat: FrameLocator): Promise<void> {
  await chat.locator("body").evaluate((body, options) => {
    const observer = new MutationObserver(() => {
      const replies = document.querySelectorAll('[data-testid="entry"][data-role="assistant"]');
      const last = replies[replies.length - 1];
      const streaming = last?.getAttribute("data-status") === "streaming";
      const text = last?.querySelector(".entry-body")?.textContent ?? "";
      const stop = document.querySelector<HTMLElement>('[data-testid="stop"]');
      if (streaming && text.length > 0 && stop?.checkVisibility()) {
        observer.disconnect();
        stop.click();
      }
    });
    observer.observe(body, options);
  }, OBSERVE);
}
