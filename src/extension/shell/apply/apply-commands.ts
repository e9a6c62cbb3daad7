// Apply's commands (public contracts, see package.json): Apply and Apply All (a chat's last
// reply, or code given as arguments), Keep and Undo (the diff editor's title, the palette),
// and the document provider behind the diffs' original side.

import * as vscode from "vscode";
import { codeBlocksOf } from "../../core/apply/code-blocks";
import { sharedWorkspaceFiles } from "../context/workspace-files";
import { ApplyController, type ApplyOutcome, type ApplyRequest } from "./apply-controller";
import { ChatApply, type ApplyMessage, type ApplyPort } from "./apply-chat";
import { APPLY_SCHEME } from "./virtual-documents";

const APPLY_COMMANDS = {
  applyCodeBlock: "statefulChat.applyCodeBlock",
  applyAll: "statefulChat.applyAll",
  keep: "statefulChat.keepApplied",
  undo: "statefulChat.undoApplied",
} as const;

/** Arguments of statefulChat.applyCodeBlock for callers other than the chat (keybindings, other extensions, tests). */
interface ApplyCodeArgs {
  readonly code: string;
  /** The file to apply to (workspace-relative or absolute); the user picks one when absent. */
  readonly path?: string;
  readonly language?: string;
  /** The block is the whole file. */
  readonly wholeFile?: boolean;
  /** Straight to fast apply. */
  readonly fast?: boolean;
}

let chatApply: ChatApply | undefined;

/** The chat panel's entry point for the webview's apply messages. */
export async function handleApplyMessage(port: ApplyPort, message: ApplyMessage): Promise<void> {
  if (!chatApply) throw new Error("Apply is not registered");
  await chatApply.handle(port, message);
}

/** The chat's webview (re)loaded: its code blocks are told their Apply state again. */
export function replayApplyStates(port: ApplyPort): void {
  chatApply?.replay(port);
}

export interface ApplyRegistration {
  readonly controller: ApplyController;
  readonly chat: ChatApply;
}

/** What Apply's commands need of the chat panels (PanelManager): the active chat's apply port. */
interface ActiveChatApply {
  readonly active: { readonly applyPort: ApplyPort } | undefined;
}

export function registerApplyCommands(context: vscode.ExtensionContext, manager: ActiveChatApply, log: vscode.LogOutputChannel, activeFile: () => vscode.Uri | undefined): ApplyRegistration {
  const controller = new ApplyController(sharedWorkspaceFiles, activeFile, log);
  const chat = new ChatApply(controller);
  chatApply = chat;
  const port = () => manager.active?.applyPort;

  const report = (outcome: ApplyOutcome, again: () => Promise<unknown>) => {
    if (outcome.status === "applied") return;
    const show = outcome.status === "error" || outcome.status === "proposed" ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    const actions = outcome.offerFast ? ["Fast Apply"] : [];
    void Promise.resolve(show(outcome.message, ...actions)).then((choice) => (choice === "Fast Apply" ? again() : undefined));
  };

  const applyCodeBlock = async (args?: unknown): Promise<ApplyOutcome | undefined> => {
    const given = codeArgs(args);
    const panel = port();
    if (given) {
      const request: ApplyRequest = {
        code: given.code,
        language: given.language,
        namedPath: given.path,
        saysWholeFile: given.wholeFile,
        forceFast: given.fast,
        engine: panel ? () => panel.engine() : undefined,
      };
      const outcome = await controller.apply(request);
      report(outcome, () => controller.apply({ ...request, forceFast: true }));
      return outcome;
    }
    const found = panel && chat.replyBlocks(panel);
    if (!panel || !found || found.blocks.length === 0) {
      void vscode.window.showInformationMessage("No code block to apply: the chat's replies have none yet.");
      return undefined;
    }
    let index = 0;
    if (found.blocks.length > 1) {
      const picked = await vscode.window.showQuickPick(
        found.blocks.map((b) => ({ label: `Block ${b.index + 1}${b.path ? `: ${b.path}` : ""}`, description: `${b.language || "code"}, ${b.code.split("\n").length} lines`, index: b.index })),
        { placeHolder: "Which code block of the last reply?" },
      );
      if (!picked) return undefined;
      index = picked.index;
    }
    const outcome = await chat.applyBlock(panel, found.entry.id, index, found.blocks[index]!.code);
    report(outcome, () => chat.applyBlock(panel, found.entry.id, index, found.blocks[index]!.code, true));
    return outcome;
  };

  const applyAll = async (args?: unknown): Promise<ApplyOutcome[] | undefined> => {
    const markdown = typeof (args as { markdown?: unknown } | undefined)?.markdown === "string" ? (args as { markdown: string }).markdown : undefined;
    const panel = port();
    if (markdown !== undefined) {
      const outcomes: ApplyOutcome[] = [];
      for (const block of codeBlocksOf(markdown)) {
        outcomes.push(await controller.apply({ code: block.code, language: block.language, namedPath: block.path, saysWholeFile: block.saysWholeFile, engine: panel ? () => panel.engine() : undefined }));
      }
      return outcomes;
    }
    const found = panel && chat.replyBlocks(panel);
    if (!panel || !found || found.blocks.length === 0) {
      void vscode.window.showInformationMessage("No code blocks to apply: the chat's replies have none yet.");
      return undefined;
    }
    return chat.applyAll(panel, found.entry.id, found.blocks.map((b) => b.code));
  };

  const settle = (how: "keep" | "undo") => async (arg?: unknown): Promise<boolean> => {
    const change = controller.pending.find(arg);
    if (!change) {
      void vscode.window.showInformationMessage(how === "keep" ? "No applied change to keep." : "No applied change to undo.");
      return false;
    }
    if (how === "keep") await controller.pending.keep(change);
    else await controller.pending.undo(change);
    return true;
  };

  context.subscriptions.push(
    controller,
    vscode.workspace.registerTextDocumentContentProvider(APPLY_SCHEME, controller.documents),
    vscode.commands.registerCommand(APPLY_COMMANDS.applyCodeBlock, applyCodeBlock),
    vscode.commands.registerCommand(APPLY_COMMANDS.applyAll, applyAll),
    vscode.commands.registerCommand(APPLY_COMMANDS.keep, settle("keep")),
    vscode.commands.registerCommand(APPLY_COMMANDS.undo, settle("undo")),
    { dispose: () => (chatApply = chatApply === chat ? undefined : chatApply) },
  );
  return { controller, chat };
}

function codeArgs(args: unknown): ApplyCodeArgs | undefined {
  if (typeof args !== "object" || args === null || typeof (args as { code?: unknown }).code !== "string") return undefined;
  const a = args as Record<string, unknown>;
  return {
    code: a.code as string,
    path: typeof a.path === "string" ? a.path : undefined,
    language: typeof a.language === "string" ? a.language : undefined,
    wholeFile: a.wholeFile === true,
    fast: a.fast === true,
  };
}
