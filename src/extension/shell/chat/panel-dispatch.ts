// Where each (already validated) message from a chat panel's webview goes: the conversation,
// the composer's context, Apply, or VS Code itself.

import * as vscode from "vscode";
import type { WebviewToHost } from "../../../webview/protocol/messages";
import type { ApplyPort } from "../apply/apply-chat";
import { handleApplyMessage, replayApplyStates } from "../apply/apply-commands";
import type { PanelContext } from "./panel-context";

/** What the dispatcher needs of a panel. */
export interface DispatchTarget {
  readonly context: PanelContext;
  readonly applyPort: ApplyPort;
  readonly lastTextEditor: () => vscode.TextEditor | undefined;
  /** The webview (re)loaded: send it the whole state. */
  sendInit(): void;
  send(text: string, context?: readonly string[]): Promise<unknown>;
  stop(): void;
  reset(): Promise<void>;
}

export async function dispatchWebviewMessage(target: DispatchTarget, message: WebviewToHost): Promise<void> {
  switch (message.type) {
    case "ready":
      target.sendInit();
      replayApplyStates(target.applyPort);
      target.context.scheduleRefresh();
      return;
    case "send":
      await target.send(message.text, message.context);
      return;
    case "removeChip":
    case "pinChip":
    case "setActiveFile":
    case "mentionQuery":
    case "addMention":
      await target.context.handle(message);
      return;
    case "stop":
      target.stop();
      return;
    case "reset":
      await target.reset();
      return;
    case "copyCode":
      await vscode.env.clipboard.writeText(message.code);
      return;
    case "insertCode":
      await insertAtCursor(target.lastTextEditor(), message.code);
      return;
    case "applyCode":
    case "applyAll":
    case "cancelApply":
      await handleApplyMessage(target.applyPort, message);
      return;
    case "runCommand":
      await vscode.commands.executeCommand(message.command);
      return;
    case "openLink":
      await vscode.env.openExternal(vscode.Uri.parse(message.url, true));
      return;
  }
}

async function insertAtCursor(editor: vscode.TextEditor | undefined, code: string): Promise<void> {
  if (!editor) {
    void vscode.window.showInformationMessage("Open a text editor to insert the code into.");
    return;
  }
  await editor.edit((edit) => {
    for (const selection of editor.selections) edit.replace(selection, code);
  });
}
