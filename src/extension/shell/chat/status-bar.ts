// The status bar item of the active chat (status-text.ts says what it shows): its model,
// where it runs, its context fill, a spinner while loading or generating. A click opens
// Select Model…. Hidden while no chat is open.

import * as vscode from "vscode";
import type { PanelManager } from "./panel-manager";
import { statusText, type StatusView } from "../../chats/status-text";

export class ChatStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly subscription: vscode.Disposable;
  private shown: StatusView | undefined;

  constructor(private readonly manager: PanelManager) {
    this.item = vscode.window.createStatusBarItem("statefulChat.model", vscode.StatusBarAlignment.Right, 100);
    this.item.name = "Stateful Chat Model";
    this.item.command = "statefulChat.selectModel";
    this.subscription = manager.onDidChange(() => this.update());
    this.update();
  }

  /** What the item shows now, undefined while it is hidden (the testing API reads it). */
  get view(): StatusView | undefined {
    return this.shown;
  }

  private update(): void {
    const chat = this.manager.active ?? this.manager.all[0];
    if (!chat) {
      this.shown = undefined;
      this.item.hide();
      return;
    }
    const view = statusText(chat.status);
    if (view.text !== this.shown?.text || view.tooltip !== this.shown.tooltip) {
      this.item.text = view.text;
      this.item.tooltip = view.tooltip;
    }
    this.shown = view;
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
