// What a chat tells its user besides the conversation itself: banners (errors, warnings, a
// server's waits; in VS Code's terms, not the CLI's), the model's load state in the webview,
// and the notices a failed turn or an overflow leaves in the transcript.

import type { StatefulChatError } from "../../core/errors";
import { CancelledError, toStatefulChatError } from "../../core/errors";
import { describeServerStatus, type ServerStatus } from "../../core/server-status";
import type { OverflowEvent } from "../../core/stats";
import type { BannerAction, HostToWebview, ModelView } from "../../../webview/protocol/messages";
import { bannerActionsFor, marksMessageNotSent } from "../../chats/error-actions";
import type { MutableEntry, PanelTranscript } from "../../chats/chat-transcript";
import { cancelledLoadNotice, crashNotice } from "./panel-helpers";
import { inVsCodeTerms } from "../settings/vscode-wording";

export type BannerLevel = "error" | "warning" | "info";

export interface NoticePort {
  post(message: HostToWebview): void;
  readonly history: PanelTranscript;
  /** The chat's state changed (the status bar redraws). */
  changed(): void;
}

export class PanelNotices {
  /** The last banner shown (the testing API reads it; users see it in the webview). */
  lastBanner: { level: BannerLevel; message: string; actions: readonly BannerAction[] } | undefined;
  /** The last model load failed (or was cancelled); cleared when a load starts again. */
  loadFailed = false;

  constructor(private readonly port: NoticePort) {}

  banner(level: BannerLevel, text: string, actions: readonly BannerAction[] = []): void {
    // Core and backend messages may name CLI flags; here the user needs the setting or command.
    const message = inVsCodeTerms(text);
    this.lastBanner = { level, message, actions };
    this.port.post({ type: "banner", level, message, actions });
  }

  modelLoading(): void {
    this.loadFailed = false;
    this.port.post({ type: "model", state: "loading" });
    this.port.changed();
  }

  modelReady(model: ModelView, notice: string | undefined): void {
    this.port.post({ type: "model", state: "ready", model });
    if (notice) this.banner("warning", notice);
    this.port.changed();
  }

  modelFailed(error: StatefulChatError): void {
    this.loadFailed = true;
    if (error.code === "cancelled") {
      // The user cancelled the load (its notification, or Stop): nothing is wrong, the next message loads again.
      const notice = cancelledLoadNotice(error);
      this.port.post({ type: "model", state: "error", message: notice.status });
      this.banner("info", notice.banner, [
        { label: "Retry", command: "statefulChat.retry" },
        { label: "Select Model…", command: "statefulChat.selectModel" },
      ]);
    } else {
      this.port.post({ type: "model", state: "error", message: inVsCodeTerms(error.message) });
      this.banner("error", error.message, bannerActionsFor(error));
    }
    this.port.changed();
  }

  /** The remote backend's waits, as an info banner (the next status or error replaces it). */
  serverStatus(status: ServerStatus): void {
    this.banner("info", `Server: ${describeServerStatus(status)}.`);
  }

  overflow(event: OverflowEvent): void {
    const how = event.strategy === "summarize" ? "summarized" : "truncated";
    this.port.history.add({
      role: "notice",
      text: `Conversation ${how} to fit the context: freed ${event.tokensFreed} tokens (${event.positionBefore} → ${event.positionAfter}).`,
      status: "complete",
    });
  }

  /** A turn that ended in an error: the transcript says what the model read and what it did not, and a banner offers what to do. */
  turnFailed(user: MutableEntry, error: unknown): void {
    const history = this.port.history;
    const typed = toStatefulChatError(error);
    const streaming = history.streaming();
    if (typed instanceof CancelledError || typed.code === "cancelled") {
      // Stopped before the reply began: the model never read the message.
      if (streaming && !streaming.text) history.remove(streaming);
      history.finish(user, "not-sent");
      return;
    }
    if (typed.code === "disposed") return;
    if (streaming) {
      if (!streaming.text) streaming.text = typed.message;
      history.finish(streaming, "error");
    }
    const notice = crashNotice(typed);
    if (notice) history.add({ role: "notice", text: notice, status: "complete" });
    if (marksMessageNotSent(typed)) history.finish(user, "not-sent");
    this.banner("error", typed.message, bannerActionsFor(typed));
  }
}
