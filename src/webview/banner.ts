// A banner above the transcript for things the user should act on (no model, download
// failed, …). Its buttons run only the host-approved BannerCommands.
import { el, icon, iconButton } from "./dom";
import type { BannerAction, WebviewToHost } from "./protocol/messages";
import { BANNER_COMMANDS } from "./protocol/messages";

export type BannerLevel = "error" | "warning" | "info";

const LEVEL_ICONS: Record<BannerLevel, string> = { error: "error", warning: "warning", info: "info" };

export class BannerArea {
  readonly element: HTMLElement;

  constructor(private readonly post: (message: WebviewToHost) => void) {
    this.element = el("div", { class: "banner-area" });
  }

  /** Shows a banner, replacing the previous one: only the latest advice is relevant. */
  show(level: BannerLevel, message: string, actions: readonly BannerAction[]): void {
    const banner = el("div", { class: `banner banner-${level}`, "data-testid": "banner", role: level === "error" ? "alert" : "status" });
    const buttons = el("div", { class: "banner-actions" });
    for (const action of actions) {
      // The shallow protocol check accepted the array; check each action before trusting it.
      if (typeof action?.label !== "string" || !(BANNER_COMMANDS as readonly string[]).includes(action.command)) continue;
      const button = el("button", { type: "button", class: "button", title: action.label }, action.label);
      button.addEventListener("click", () => this.post({ type: "runCommand", command: action.command }));
      buttons.append(button);
    }
    const close = iconButton("close", "Dismiss");
    close.addEventListener("click", () => banner.remove());
    banner.append(icon(LEVEL_ICONS[level] ?? "info", "banner-icon"), el("div", { class: "banner-message" }, message), buttons, close);
    this.element.replaceChildren(banner);
  }
}
