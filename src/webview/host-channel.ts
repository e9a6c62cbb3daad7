// The only door between the webview and the extension host. Everything that arrives is
// validated with parseHostMessage (the host is trusted, but a bad message must never
// break the UI); everything that leaves is typed as WebviewToHost.
import { parseHostMessage, type HostToWebview, type WebviewToHost } from "./protocol/messages";

/** What VS Code keeps for a hidden (or reloaded) webview; see view-state.ts. */
export interface VsCodeApi<State> {
  postMessage(message: unknown): void;
  getState(): State | undefined;
  setState(state: State): void;
}

declare global {
  // Injected by VS Code into every webview; callable exactly once per page.
  function acquireVsCodeApi<State = unknown>(): VsCodeApi<State>;
}

export class HostChannel<State> {
  private readonly api: VsCodeApi<State>;

  constructor() {
    this.api = acquireVsCodeApi<State>();
  }

  post(message: WebviewToHost): void {
    this.api.postMessage(message);
  }

  /** Calls handler for every well-formed host message; malformed ones are dropped with a warning. */
  listen(handler: (message: HostToWebview) => void): void {
    window.addEventListener("message", (event: MessageEvent<unknown>) => {
      const message = parseHostMessage(event.data);
      if (!message) {
        console.warn("Stateful Chat: ignored malformed host message", event.data);
        return;
      }
      try {
        handler(message);
      } catch (error) {
        // One bad message (e.g. a field with an unexpected shape that passed the shallow
        // check) must not stop the next ones from being handled.
        console.error("Stateful Chat: failed to handle host message", message.type, error);
      }
    });
  }

  getState(): State | undefined {
    return this.api.getState();
  }

  setState(state: State): void {
    this.api.setState(state);
  }
}
