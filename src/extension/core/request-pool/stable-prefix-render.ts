// The guard around stable-prefix rendering (issue 36): templates differ in what they do with a
// second system message. Some render it as its own turn (Qwen2.5, ChatML), some raise an error,
// some drop every system message but the first, some fold system text into a user turn. So each
// placement is rendered and checked: the blocks' own system message (just before the request)
// is taken when the template renders it without error, with every byte of the moved blocks,
// after the stable system text; else the start of the request's user message when every byte
// of the blocks is in that rendering;
// else VS Code's own order, with the reason given to `onFallback`. Nothing here knows a
// template: only what it renders.

import { TemplateStoppedError } from "../errors";
import { stablePrefixLayouts, type StablePrefixPlacement, type VolatileBlockName } from "./stable-prefix";
import type { RequestMessage } from "./request-shape";

export interface StablePrefixRendering {
  readonly text: string;
  /** "as-sent": VS Code's order (the setting is off, no marker matched, or no placement kept the blocks). */
  readonly layout: StablePrefixPlacement | "as-sent";
  /** The blocks moved after the stable prefix (empty with "as-sent"). */
  readonly moved: readonly VolatileBlockName[];
  /**
   * With a placement taken: leading characters of `text` that the next new conversation shares
   * (the stable instructions and tools, the per-load blocks moved), ending where the first
   * per-conversation block's own value starts. The prefix store keeps that much (issue 36 item 4).
   */
  readonly recurringEnd?: number;
}

/**
 * Render `messages` with the known volatile blocks after the stable prefix where the template
 * keeps them. `render` is the template (with the request's tools); an error it throws for the
 * messages as sent is the caller's, as without this step.
 */
export function renderStablePrefixFirst(
  render: (messages: readonly RequestMessage[]) => string,
  messages: readonly RequestMessage[],
  onFallback?: (why: string) => void,
): StablePrefixRendering {
  const asSent = (): StablePrefixRendering => ({ text: render(messages), layout: "as-sent", moved: [] });
  const layouts = stablePrefixLayouts(messages);
  if (!layouts) return asSent();
  const moved = layouts.blocks.map((b) => b.name);
  const system = attempt(render, layouts.systemTurn);
  if (system.text !== undefined) {
    const at = system.text.indexOf(layouts.moved);
    const stableEnd = layouts.stableSystem === "" ? 0 : system.text.indexOf(layouts.stableSystem) + layouts.stableSystem.length;
    if (at >= 0 && at >= stableEnd) return { text: system.text, layout: "system-turn", moved, recurringEnd: at + layouts.recurringChars };
  }
  const systemProblem = system.text === undefined ? `refuses a second system message (${system.error})` : "does not render a second system message as a turn of its own";
  if (!layouts.userMessage) {
    onFallback?.(`the template ${systemProblem} and the request has no user message: rendered in VS Code's order`);
    return asSent();
  }
  const user = attempt(render, layouts.userMessage);
  const userAt = user.text?.indexOf(layouts.moved) ?? -1;
  if (user.text !== undefined && userAt >= 0) return { text: user.text, layout: "user-message", moved, recurringEnd: userAt + layouts.recurringChars };
  const userProblem = user.text === undefined ? `fails with the blocks in the request's user message (${user.error})` : "drops or changes them at the start of the request's user message";
  onFallback?.(`the template ${systemProblem} and ${userProblem}: rendered in VS Code's order (${moved.join(", ")} ahead of the tools)`);
  return asSent();
}

function attempt(render: (messages: readonly RequestMessage[]) => string, messages: readonly RequestMessage[]): { text?: string; error?: string } {
  try {
    return { text: render(messages) };
  } catch (error) {
    // A template the sandbox stopped would be stopped again in every other layout, each after
    // the whole time limit: the request fails now, as it would in VS Code's order.
    if (error instanceof TemplateStoppedError) throw error;
    return { error: error instanceof Error ? error.message : String(error) };
  }
}
