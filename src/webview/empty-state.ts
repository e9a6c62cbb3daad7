// What an empty chat shows: what to do, which model will answer, and, while that is the tiny
// default model (a model to try the chat with, not for real questions), an offer of a better
// one: Select Model… (a file or a model found on disk) and Set Up a Model… (downloads that fit).
import { el, icon } from "./dom";
import type { BannerCommand, ModelView, WebviewToHost } from "./protocol/messages";

export class EmptyState {
  readonly element: HTMLElement;
  private readonly model: HTMLElement;

  constructor(private readonly post: (message: WebviewToHost) => void) {
    this.model = el("div", { class: "empty-model", "data-testid": "empty-model" });
    this.element = el(
      "div",
      { class: "empty-state" },
      icon("comment-discussion"),
      el("p", { class: "empty-title" }, "Ask about your code"),
      el("p", { class: "empty-hint" }, "The model keeps the conversation in its cache, so each turn only processes what is new."),
      this.model,
    );
  }

  /** The model that will answer (undefined: not loaded yet). */
  showModel(model: ModelView | undefined): void {
    if (!model) {
      this.model.replaceChildren();
      return;
    }
    const line = el("p", { class: "empty-hint" }, "Answers come from ", el("strong", {}, model.name), model.starter ? ", a tiny model for trying the chat out." : ".");
    if (!model.starter) {
      this.model.replaceChildren(line);
      return;
    }
    this.model.replaceChildren(
      line,
      el("p", { class: "empty-hint" }, "A coding model gives far better answers:"),
      el("div", { class: "empty-actions" }, this.button("Select Model…", "statefulChat.selectModel", "empty-select-model"), this.button("Set Up a Model…", "statefulChat.setUpModel", "empty-setup-model")),
    );
  }

  private button(label: string, command: BannerCommand, testId: string): HTMLButtonElement {
    const button = el("button", { type: "button", class: "button", title: label, "data-testid": testId }, label);
    button.addEventListener("click", () => this.post({ type: "runCommand", command }));
    return button;
  }
}
