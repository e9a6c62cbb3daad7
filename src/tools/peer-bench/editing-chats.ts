// The four editing chats of the peer bench (issue 40): rewrite a function, rename across a
// file, add a parameter through its call sites, fix a bug and explain. Each chat starts from
// a TypeScript module generated from a fixed seed (the seed list below), pastes the module
// in its first message and, in each later message, the code the request is about as it is
// now (code inline in the messages, as a user pastes it). The edits applied between turns
// are fixed (what a correct reply says), never a model's reply, so every side and every run
// gets exactly the same messages.

import { seededRandom } from "./seeded-random";

export const EDITING_CHAT_IDS = ["edit-rewrite", "edit-rename", "edit-param", "edit-fix"] as const;
export type EditingChatId = (typeof EDITING_CHAT_IDS)[number];

/** The fixed seed of each chat: the names, constants and order of its requests come from it. */
export const EDITING_CHAT_SEEDS: Record<EditingChatId, number> = { "edit-rewrite": 11, "edit-rename": 23, "edit-param": 37, "edit-fix": 41 };

/** Each chat has this many turns; `--edit-turns` may run fewer. */
export const EDITING_CHAT_TURNS = 12;

/** Functions in each chat's module (eight of them are edited). */
const FUNCTION_COUNT = 12;

const NOUNS = ["Order", "Invoice", "Parcel", "Ticket", "Sensor", "Reading", "Payment", "Refund", "Shipment", "Batch", "Sample", "Account", "Session", "Record", "Entry", "Voucher"];
const NEW_NOUNS = ["Item", "Claim", "Signal", "Metric", "Charge", "Bundle", "Event", "Lot", "Probe", "Ledger", "Quote", "Slot"];
const PARAMS = ["scale", "factor", "weight", "ratio", "gain", "boost"];

interface Fn {
  name: string;
  kind: 0 | 1 | 2 | 3;
  /** The constant its call site in `summary` passes. */
  argument: string;
  /** Extra parameters added by edit-param, in order. */
  extras: string[];
  bug: boolean;
  doc?: string;
  guard: boolean;
  loopVar?: string;
  limitName: string;
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

function shuffled<T>(random: () => number, items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

function makeFunctions(random: () => number, bugs: boolean): Fn[] {
  const nouns = shuffled(random, NOUNS).slice(0, FUNCTION_COUNT);
  return nouns.map((noun, i) => {
    const kind = (i % 4) as Fn["kind"];
    const prefix = ["sumAbove", "count", "largest", "average"][kind];
    const argument = kind === 0 ? String(5 + Math.floor(random() * 40)) : kind === 1 ? `"${noun.slice(0, 2).toLowerCase()}"` : "";
    return { name: `${prefix}${noun}`, kind, argument, extras: [], bug: bugs, guard: false, limitName: kind === 0 ? "limit" : "prefix" };
  });
}

function body(fn: Fn): string[] {
  const v = fn.loopVar ?? (fn.kind === 1 ? "item" : "value");
  const result = (expr: string) => fn.extras.reduce((e, p) => `${p} * (${e})`, expr);
  const guard = fn.guard ? [`  if (${fn.kind === 1 ? "items" : "values"}.length === 0) {`, `    throw new RangeError("${fn.name}: empty input");`, "  }"] : [];
  switch (fn.kind) {
    case 0:
      return [...guard, "  let total = 0;", `  for (const ${v} of values) {`, `    if (${v} > ${fn.limitName}) {`, fn.bug ? `      total += ${v};` : `      total += ${v} - ${fn.limitName};`, "    }", "  }", `  return ${result("total")};`];
    case 1:
      return [...guard, "  let count = 0;", `  for (const ${v} of items) {`, `    if (${v}.${fn.bug ? "endsWith" : "startsWith"}(${fn.limitName})) {`, "      count += 1;", "    }", "  }", `  return ${result("count")};`];
    case 2:
      return [...guard, "  let best: number | undefined;", `  for (const ${v} of values) {`, `    if (best === undefined || ${v} ${fn.bug ? "<" : ">"} best) {`, `      best = ${v};`, "    }", "  }", `  return ${result("best ?? 0")};`];
    case 3:
      return [
        ...(fn.guard ? guard : ["  if (values.length === 0) {", "    return 0;", "  }"]),
        "  let total = 0;",
        `  for (const ${v} of values) {`,
        `    total += ${v};`,
        "  }",
        `  return ${result(fn.bug ? "total / (values.length - 1)" : "total / values.length")};`,
      ];
  }
}

function signature(fn: Fn): string {
  const params = [fn.kind === 1 ? "items: string[]" : "values: number[]"];
  if (fn.kind === 0) params.push(`${fn.limitName}: number`);
  if (fn.kind === 1) params.push(`${fn.limitName}: string`);
  for (const extra of fn.extras) params.push(`${extra} = 1`);
  return `export function ${fn.name}(${params.join(", ")}): number {`;
}

function renderFunction(fn: Fn): string {
  const doc = fn.doc ? [`/** ${fn.doc} */`] : [];
  return [...doc, signature(fn), ...body(fn), "}"].join("\n") + "\n";
}

function callSite(fn: Fn): string {
  const args = [fn.kind === 1 ? "labels" : "values", ...(fn.argument ? [fn.argument] : []), ...fn.extras.map(() => "2")];
  return `  parts.push(\`${fn.name}: \${${fn.name}(${args.join(", ")})}\`);`;
}

function renderModule(fns: readonly Fn[]): string {
  const summary = ["export function summary(values: number[], labels: string[]): string {", "  const parts: string[] = [];", ...fns.map(callSite), '  return parts.join(", ");', "}"].join("\n");
  return `// Small statistics helpers for the reporting service.\n\n${fns.map(renderFunction).join("\n")}\n${summary}\n`;
}

const ts = (code: string) => `\`\`\`ts\n${code.endsWith("\n") ? code : `${code}\n`}\`\`\``;

const SYMPTOMS: Record<Fn["kind"], string> = {
  0: "it returns the sum of the values above the limit instead of the sum of how far they exceed it",
  1: "it counts the labels that end with the prefix instead of those that start with it",
  2: "it returns the smallest value instead of the largest",
  3: "the average is too large: for [2, 4] it returns 6 instead of 3",
};

/**
 * The user messages of one editing chat, in order (`turns` of them, at most
 * EDITING_CHAT_TURNS). The first message holds the whole module; each message ends with the
 * request.
 */
export function editingChat(id: EditingChatId, turns = EDITING_CHAT_TURNS): string[] {
  const random = seededRandom(EDITING_CHAT_SEEDS[id]);
  const fns = makeFunctions(random, id === "edit-fix");
  // Eight functions in a seeded order; turns 9–12 come back to the first four (the chat sees its own earlier edits).
  const order = shuffled(random, fns.map((_, i) => i)).slice(0, 8);
  const newNouns = shuffled(random, NEW_NOUNS);
  const messages: string[] = [];
  const count = Math.min(turns, EDITING_CHAT_TURNS);
  for (let turn = 0; turn < count; turn++) {
    const fn = fns[order[turn % order.length]];
    const intro = turn === 0 ? `Here is the module I am working on:\n\n${ts(renderModule(fns))}\n\n` : "";
    let request: string;
    switch (id) {
      case "edit-rewrite": {
        const change = pick(random, ["doc", "guard", "loop"] as const);
        const pasted = turn === 0 ? "" : `\`${fn.name}\` as it is now:\n\n${ts(renderFunction(fn))}\n\n`;
        if (change === "doc") {
          request = `${pasted}Add a one-line JSDoc comment to \`${fn.name}\` saying what it returns. Reply with the whole updated function.`;
          fn.doc = `What ${fn.name} computes over its input.`;
        } else if (change === "guard") {
          request = `${pasted}Make \`${fn.name}\` throw a RangeError when its input array is empty. Rewrite the whole function.`;
          fn.guard = true;
        } else {
          request = `${pasted}Rename the loop variable in \`${fn.name}\` to \`entry\` and reply with the whole rewritten function.`;
          fn.loopVar = "entry";
        }
        break;
      }
      case "edit-rename": {
        const pasted = turn === 0 ? "" : `\`${fn.name}\` and its call site in \`summary\`:\n\n${ts(`${renderFunction(fn)}\n// in summary:\n${callSite(fn)}`)}\n\n`;
        if (turn % 3 === 2 && fn.kind <= 1) {
          const to = fn.kind === 0 ? "threshold" : "start";
          request = `${pasted}Rename the parameter \`${fn.limitName}\` of \`${fn.name}\` to \`${to}\`. Show the whole function after the rename.`;
          fn.limitName = to;
        } else {
          const to = fn.name.replace(/[A-Z][a-z]*$/, newNouns[turn % newNouns.length]);
          request = `${pasted}Rename \`${fn.name}\` to \`${to}\` everywhere in this file. Show the renamed function and the changed line in \`summary\`.`;
          fn.name = to;
        }
        break;
      }
      case "edit-param": {
        const param = PARAMS[(turn + Math.floor(random() * PARAMS.length)) % PARAMS.length];
        const name = fn.extras.includes(param) ? `${param}${fn.extras.length + 1}` : param;
        const pasted = turn === 0 ? "" : `\`${fn.name}\` and its call site in \`summary\`:\n\n${ts(`${renderFunction(fn)}\n// in summary:\n${callSite(fn)}`)}\n\n`;
        request = `${pasted}Add a parameter \`${name}\` (default 1) to \`${fn.name}\` that multiplies its result, and pass 2 for it at the call site in \`summary\`. Show the whole updated function and the changed call.`;
        fn.extras.push(name);
        break;
      }
      case "edit-fix": {
        const pasted = turn === 0 ? "" : `Here is \`${fn.name}\`:\n\n${ts(renderFunction(fn))}\n\n`;
        if (fn.bug) {
          request = `${pasted}\`${fn.name}\` has a bug: ${SYMPTOMS[fn.kind]}. Fix it, reply with the whole fixed function, and explain the cause in one sentence.`;
          fn.bug = false;
        } else {
          request = `${pasted}Is \`${fn.name}\` correct now? Explain in two sentences and show the function with a comment on the line that decides the result.`;
        }
        break;
      }
    }
    messages.push(intro + request);
  }
  return messages;
}
