// Stable prefix first (issue 36): VS Code's Copilot Chat writes blocks that change per
// conversation (the template variables name the chat session's own log folder) or per load
// (the skills/agents list, once VS Code has loaded it) into its system message, ahead of the
// ~13,000 tokens of tool definitions that the template renders after that message. One such
// block makes every new conversation differ from the stored prefix a few thousand tokens in.
// This step takes those blocks out of the system message, byte for byte, so they can be
// rendered after the stable instructions and tools, and after the workspace's own context
// messages too: as a system message of their own just before the request, or at the start of
// the request's message (stable-prefix-render.ts picks the one the template keeps). Copilot
// Chat opens a conversation with a run of user messages: the environment and workspace (the
// same for every conversation of a workspace, ~200 tokens), then the request. Placed before
// the last of that run, the blocks leave those ~200 tokens in what the next conversation
// shares; the run never changes in a conversation's later requests, so neither does the place.
// Everything else keeps its order. Pure and deterministic: the same messages
// give the same layout, and a layout given again is unchanged (its system message holds no
// marker any more).

import type { RequestMessage } from "./request-shape";

// Where the markers were read: copilot-chat 0.67 (VS Code 1.139.1), whose requests were recorded (test/bench/results/agent-requests-qwen1.5b/).

/**
 * The one list of blocks known to vary, each recognised by a fixed start and end marker (both
 * part of the block). Ordered as Copilot Chat writes them; a block matches only whole.
 * `varies`: a "per-load" block is the same in every conversation of one window once it
 * appears, so the prefix store keeps it; a "per-conversation" one ends what the next
 * conversation shares, at its `sharedUntil` marker when it has one (the text up to and
 * including the marker is the same for every conversation of a workspace), else where it starts.
 */
export const VOLATILE_BLOCKS = [
  {
    name: "skills-agents",
    why: "appears once VS Code has loaded skills and agents (a follow-up has it, the first request not)",
    varies: "per-load",
    start: "<instructions>\n<skills>\n",
    end: "</instructions>",
    sharedUntil: undefined,
  },
  {
    name: "template-variables",
    why: "VSCODE_TARGET_SESSION_LOG names the chat session's own debug-log folder, new for every conversation",
    varies: "per-conversation",
    start: "The following template variables are available for this session:\n",
    end: "When a skill or instruction references {{VSCODE_VARIABLE_NAME}}, substitute the corresponding value above.",
    // The prompts folder and the log folder's path are the user's and the workspace's; the
    // session's own folder name after this is the conversation's (about 100 tokens in).
    sharedUntil: "/debug-logs/",
  },
] as const;

export type VolatileBlockName = (typeof VOLATILE_BLOCKS)[number]["name"];

/** Where a layout puts the moved blocks. */
export const STABLE_PREFIX_PLACEMENTS = ["system-turn", "user-message"] as const;
export type StablePrefixPlacement = (typeof STABLE_PREFIX_PLACEMENTS)[number];

export interface FoundBlock {
  readonly name: VolatileBlockName;
  /** Offsets in the text searched; `text` is exactly text.slice(from, to). */
  readonly from: number;
  readonly to: number;
  readonly text: string;
}

/** The known blocks in `text`, whole ones only, in the order they appear (each at its first occurrence). */
export function findVolatileBlocks(text: string): FoundBlock[] {
  const found: FoundBlock[] = [];
  for (const block of VOLATILE_BLOCKS) {
    const from = text.indexOf(block.start);
    if (from < 0) continue;
    const endAt = text.indexOf(block.end, from + block.start.length);
    if (endAt < 0) continue;
    const to = endAt + block.end.length;
    found.push({ name: block.name, from, to, text: text.slice(from, to) });
  }
  found.sort((a, b) => a.from - b.from);
  // Overlapping matches would move text twice: keep the first, drop what overlaps it.
  return found.filter((block, i) => i === 0 || block.from >= found[i - 1]!.to);
}

/** `text` without `blocks` and the whitespace just before each (it separated the block from what preceded it). */
function withoutBlocks(text: string, blocks: readonly Pick<FoundBlock, "from" | "to">[]): string {
  let out = "";
  let at = 0;
  for (const block of blocks) {
    out = out + text.slice(at, block.from).replace(/\s+$/, "");
    at = block.to;
  }
  return out + text.slice(at);
}

export interface StablePrefixLayouts {
  /** The blocks moved, in their original order. */
  readonly blocks: readonly FoundBlock[];
  /** The moved blocks as one text (joined by a newline): what must appear, whole, in the rendering. */
  readonly moved: string;
  /**
   * Leading characters of `moved` that the next new conversation shares: up to the first
   * per-conversation block, with that block's shared head (all of `moved` when there is none).
   */
  readonly recurringChars: number;
  /** The system message without the blocks. */
  readonly stableSystem: string;
  /** The messages with the blocks in a system message of their own, at `movedTo`. */
  readonly systemTurn: readonly RequestMessage[];
  /** The messages with the blocks at the start of the user message at `movedTo`; undefined when there is none. */
  readonly userMessage?: readonly RequestMessage[];
}

/** Leading characters of a per-conversation block that every conversation of the workspace shares: through its `sharedUntil` marker (none without one). */
function sharedHead(block: FoundBlock): number {
  const marker = VOLATILE_BLOCKS.find((known) => known.name === block.name)?.sharedUntil;
  if (marker === undefined) return 0;
  const at = block.text.indexOf(marker);
  return at < 0 ? 0 : at + marker.length;
}

/** Both layouts of `messages` with the known blocks moved, or undefined when none is in the leading system message (render as sent). */
export function stablePrefixLayouts(messages: readonly RequestMessage[]): StablePrefixLayouts | undefined {
  const system = messages[0];
  if (system?.role !== "system") return undefined;
  const blocks = findVolatileBlocks(system.content);
  if (blocks.length === 0) return undefined;
  const moved = blocks.map((b) => b.text).join("\n");
  const perConversation = blocks.findIndex((b) => VOLATILE_BLOCKS.find((known) => known.name === b.name)?.varies === "per-conversation");
  // Each block before it, and the newline joining it to the next; then its shared head.
  const recurringChars =
    perConversation < 0 ? moved.length : blocks.slice(0, perConversation).reduce((sum, b) => sum + b.text.length + 1, 0) + sharedHead(blocks[perConversation]!);
  const stableSystem = withoutBlocks(system.content, blocks);
  const rest = messages.slice(1);
  const at = movedTo(rest);
  const userAt = rest[at]?.role === "user" ? at : rest.findIndex((m) => m.role === "user");
  return {
    blocks,
    moved,
    recurringChars,
    stableSystem,
    systemTurn: [{ ...system, content: stableSystem }, ...rest.slice(0, at), { role: "system", content: moved }, ...rest.slice(at)],
    ...(userAt < 0
      ? {}
      : {
          userMessage: [
            { ...system, content: stableSystem },
            ...rest.map((m, i) => (i === userAt ? { ...m, content: `${moved}\n\n${m.content}` } : m)),
          ],
        }),
  };
}

/**
 * Where, among the messages after the system message, the moved blocks go: before the last of
 * the leading run of user messages (the request, after the workspace's context messages), or
 * first when that run has fewer than two.
 */
function movedTo(rest: readonly RequestMessage[]): number {
  let run = 0;
  while (run < rest.length && rest[run]!.role === "user") run++;
  return run >= 2 ? run - 1 : 0;
}
