// Wires the chat webview together: host messages in, UI events out. Each part lives in its
// own module; this file only connects them.
import "./styles/chat.css";
import "./styles/controls.css";
import "./styles/transcript.css";
import "./styles/composer.css";
import "./styles/markdown.css";
import "./styles/highlight.css";
import "./styles/thinking.css";
import { BannerArea } from "./banner";
import { showApplyState } from "./apply-status";
import { handleCodeBlockClicks } from "./code-blocks";
import { Composer } from "./composer";
import { el, iconButton } from "./dom";
import { cleanEntry, validModel, validStats } from "./protocol/entry-guards";
import { HostChannel } from "./host-channel";
import { handleLinkClicks } from "./links";
import { ModelStatus } from "./model-status";
import { EmptyState } from "./empty-state";
import type { HostToWebview, ModelView } from "./protocol/messages";
import { COPY_REPLY_EVENT, setReasoningMarkers } from "./reply-parts";
import { TranscriptView, type RenderCounters } from "./transcript-view";
import { ViewStateStore, type ViewState } from "./view-state";

declare global {
  interface Window {
    /** Read by test/webview: how often streamed text was rendered versus received. */
    statefulChatTestHooks?: { readonly counters: RenderCounters };
  }
}

function start(app: HTMLElement): void {
  const channel = new HostChannel<ViewState>();
  const post = channel.post.bind(channel);
  const viewState = new ViewStateStore(channel);

  const modelStatus = new ModelStatus();
  const banners = new BannerArea(post);
  // setState crosses to the workbench on every call; scrolling (including auto-scroll while
  // streaming) fires far more often than a saved position needs.
  let scrollSave: ReturnType<typeof setTimeout> | undefined;
  const emptyState = new EmptyState(post);
  const transcript = new TranscriptView((scrollTop, atBottom) => {
    clearTimeout(scrollSave);
    scrollSave = setTimeout(() => viewState.update({ scrollTop, atBottom }), 250);
  }, emptyState.element);
  const composer = new Composer(post, (draft) => viewState.update({ draft }), viewState.current.draft);
  handleCodeBlockClicks(transcript.element, post);
  transcript.element.addEventListener(COPY_REPLY_EVENT, (event) => {
    const code = (event as CustomEvent<unknown>).detail;
    if (typeof code === "string") post({ type: "copyCode", code });
  });
  const showModel = (model: ModelView | undefined) => {
    setReasoningMarkers(model?.reasoning);
    modelStatus.show({ state: "ready", model });
    emptyState.showModel(model);
  };
  handleLinkClicks(app, (url) => post({ type: "openLink", url }));
  window.statefulChatTestHooks = { counters: transcript.counters };

  const reset = iconButton("clear-all", "Reset conversation", "reset");
  reset.addEventListener("click", () => post({ type: "reset" }));
  const header = el("header", { class: "chat-header" }, modelStatus.element, el("div", { class: "chat-toolbar" }, reset));
  app.replaceChildren(el("div", { class: "chat" }, header, banners.element, transcript.element, composer.element));

  let restoredScroll = false;
  channel.listen((message: HostToWebview) => {
    switch (message.type) {
      case "init":
        if (typeof message.panelId === "string" && message.panelId !== viewState.current.panelId) {
          viewState.update({ panelId: message.panelId });
        }
        showModel(validModel(message.model));
        transcript.reset(message.transcript.map(cleanEntry));
        composer.setBusy(message.busy, 0);
        // The first init after a (re)load restores where the user was; later ones follow the bottom.
        if (!restoredScroll) transcript.restoreScroll(viewState.current.scrollTop, viewState.current.atBottom);
        else transcript.scrollToBottom();
        restoredScroll = true;
        return;
      case "model":
        if (message.state === "loading") modelStatus.show({ state: "loading" });
        else if (message.state === "error") modelStatus.show({ state: "error", message: typeof message.message === "string" ? message.message : "The model failed to load." });
        else showModel(validModel(message.model));
        return;
      case "entry":
        transcript.upsert(cleanEntry(message.entry));
        return;
      case "tokens":
        transcript.appendTokens(message.id, message.text);
        return;
      case "entryDone":
        transcript.finish(message.id, message.status, message.text, validStats(message.stats));
        return;
      case "busy":
        composer.setBusy(message.busy, message.queued);
        return;
      case "banner":
        banners.show(message.level, message.message, message.actions);
        return;
      case "cleared":
        transcript.reset([]);
        return;
      case "composerContext":
        composer.showContext(message.chips, message.activeFileOff);
        return;
      case "mentionResults":
        composer.showMentionOptions(message.requestId, message.options);
        return;
      case "applyState":
        showApplyState(transcript.element, message);
        return;
      default:
        assertNever(message);
    }
  });

  post({ type: "ready" });
  composer.focus();
}

function assertNever(value: never): never {
  throw new Error(`unhandled host message ${JSON.stringify(value)}`);
}

const app = document.getElementById("app");
if (app) start(app);
else console.error("Stateful Chat: #app element missing");
