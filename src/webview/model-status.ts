// The line at the top naming the model and backend, or saying it is loading or failed.
import { el, icon } from "./dom";
import type { ModelView } from "./protocol/messages";

export type ModelState = { readonly state: "loading" } | { readonly state: "ready"; readonly model?: ModelView } | { readonly state: "error"; readonly message: string };

export class ModelStatus {
  readonly element: HTMLElement;

  constructor() {
    this.element = el("div", { class: "model-status", "data-testid": "model-status", role: "status" });
    this.show({ state: "ready" });
  }

  show(state: ModelState): void {
    this.element.setAttribute("data-state", state.state);
    this.element.removeAttribute("title");
    switch (state.state) {
      case "loading":
        this.element.replaceChildren(icon("loading", "codicon-modifier-spin"), el("span", {}, "Loading model…"));
        return;
      case "error":
        this.element.replaceChildren(icon("error"), el("span", { class: "model-error" }, state.message));
        this.element.title = state.message;
        return;
      case "ready": {
        const model = state.model;
        if (!model) {
          this.element.replaceChildren(icon("circle-large-outline"), el("span", {}, "No model loaded"));
          return;
        }
        const parts: Node[] = [
          icon("chip"),
          el("span", { class: "model-name" }, model.name),
          el("span", { class: "model-backend" }, model.backend),
          el("span", { class: "model-capacity" }, `${model.capacity.toLocaleString("en-US")} tokens`),
        ];
        if (model.notice) parts.push(el("span", { class: "model-notice" }, icon("info"), ` ${model.notice}`));
        this.element.replaceChildren(...parts);
        this.element.title = model.details || `${model.name} (${model.backend})`;
        return;
      }
    }
  }
}
