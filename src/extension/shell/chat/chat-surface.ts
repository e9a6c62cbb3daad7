// Where a chat is shown: an editor tab (WebviewPanel) or the side bar view (WebviewView).
// A ChatPanel talks to its webview only through this small surface, so one chat class hosts
// the same conversation in both places. The adapters use only what they are handed (no
// runtime `vscode`), so they are unit-tested on test doubles of the two VS Code objects.

import type * as vscode from "vscode";

export type ChatSurfaceKind = "editor" | "view";

type Subscribe = (listener: () => void) => { dispose(): void };

export interface ChatSurface {
  readonly kind: ChatSurfaceKind;
  readonly webview: vscode.Webview;
  /** The conversation's title: the editor tab's title, the view's description. */
  title: string;
  /** Shown on screen (a hidden tab, a collapsed or closed view: not). */
  readonly visible: boolean;
  /** The chat the user is in: the active editor tab; a view while it is visible. */
  readonly active: boolean;
  /** Visibility or focus changed. */
  readonly onDidChangeViewState: Subscribe;
  /** The chat's place is gone: the tab closed, the view disposed, or `close()` called. Fires once. */
  readonly onDidClose: Subscribe;
  reveal(preserveFocus?: boolean): void;
  /** Ends the chat here: an editor tab closes; a view stays and is handed to the next chat. */
  close(): void;
}

/** What the editor adapter needs of a vscode.WebviewPanel. */
export type PanelLike = Pick<vscode.WebviewPanel, "webview" | "title" | "visible" | "active" | "reveal" | "dispose"> & {
  readonly onDidChangeViewState: (listener: () => void) => { dispose(): void };
  readonly onDidDispose: (listener: () => void) => { dispose(): void };
};

/** What the view adapter needs of a vscode.WebviewView. */
export type ViewLike = Pick<vscode.WebviewView, "webview" | "visible" | "show"> & {
  description?: string;
  readonly onDidChangeVisibility: (listener: () => void) => { dispose(): void };
  readonly onDidDispose: (listener: () => void) => { dispose(): void };
};

/** Listeners fired at most once (a surface closes once). */
class Once {
  private listeners: Array<() => void> | undefined = [];

  get fired(): boolean {
    return this.listeners === undefined;
  }

  readonly subscribe: Subscribe = (listener) => {
    if (!this.listeners) {
      listener();
      return { dispose: () => undefined };
    }
    this.listeners.push(listener);
    return { dispose: () => void (this.listeners = this.listeners?.filter((l) => l !== listener)) };
  };

  fire(): void {
    const listeners = this.listeners;
    this.listeners = undefined;
    for (const listener of listeners ?? []) listener();
  }
}

export function editorSurface(panel: PanelLike): ChatSurface {
  return {
    kind: "editor",
    webview: panel.webview,
    get title() {
      return panel.title;
    },
    set title(title: string) {
      panel.title = title;
    },
    get visible() {
      return panel.visible;
    },
    get active() {
      return panel.active;
    },
    onDidChangeViewState: (listener) => panel.onDidChangeViewState(listener),
    onDidClose: (listener) => panel.onDidDispose(listener),
    reveal: (preserveFocus) => panel.reveal(undefined, preserveFocus),
    close: () => {
      panel.dispose();
    },
  };
}

/**
 * One chat's hold on the side bar view. The view outlives its chats (New Chat in the view
 * hands it to a fresh one), so `close()` only detaches this chat; the view's own disposal
 * (the user hid it, or moved it elsewhere) closes the chat too.
 */
export function viewSurface(view: ViewLike): ChatSurface {
  const closed = new Once();
  const disposed = view.onDidDispose(() => closed.fire());
  closed.subscribe(() => disposed.dispose());
  let title = "";
  return {
    kind: "view",
    webview: view.webview,
    get title() {
      return title;
    },
    set title(value: string) {
      title = value;
      if (!closed.fired) view.description = value === "Stateful Chat" ? "" : value;
    },
    get visible() {
      return !closed.fired && view.visible;
    },
    get active() {
      return !closed.fired && view.visible;
    },
    onDidChangeViewState: (listener) => {
      const sub = view.onDidChangeVisibility(() => closed.fired || listener());
      return sub;
    },
    onDidClose: closed.subscribe,
    reveal: (preserveFocus) => {
      if (!closed.fired) view.show(preserveFocus);
    },
    close: () => closed.fire(),
  };
}

/**
 * The surface a chat holds for its whole life, forwarding to where it is shown now. Open Chat
 * in Editor moves the side bar's chat to an editor tab: the chat (its session, KV cache and
 * transcript) stays, only its place changes, and the old place is let go without closing it.
 */
export class MovableSurface implements ChatSurface {
  private current: ChatSurface;
  private attached: Array<{ dispose(): void }> = [];
  private readonly stateListeners = new Set<() => void>();
  private readonly closed = new Once();

  constructor(first: ChatSurface) {
    this.current = first;
    this.attach();
  }

  get kind(): ChatSurfaceKind {
    return this.current.kind;
  }

  get webview(): vscode.Webview {
    return this.current.webview;
  }

  get title(): string {
    return this.current.title;
  }

  set title(value: string) {
    this.current.title = value;
  }

  get visible(): boolean {
    return this.current.visible;
  }

  get active(): boolean {
    return this.current.active;
  }

  readonly onDidChangeViewState: Subscribe = (listener) => {
    this.stateListeners.add(listener);
    return { dispose: () => void this.stateListeners.delete(listener) };
  };

  readonly onDidClose: Subscribe = (listener) => this.closed.subscribe(listener);

  reveal(preserveFocus?: boolean): void {
    this.current.reveal(preserveFocus);
  }

  close(): void {
    this.current.close();
  }

  /** Shows the chat on `next`; the previous place is closed after it stopped forwarding (so the chat stays open). */
  moveTo(next: ChatSurface): void {
    if (this.closed.fired) return;
    for (const sub of this.attached.splice(0)) sub.dispose();
    const previous = this.current;
    next.title = previous.title;
    this.current = next;
    this.attach();
    previous.close();
    for (const listener of [...this.stateListeners]) listener();
  }

  private attach(): void {
    this.attached = [
      this.current.onDidChangeViewState(() => {
        for (const listener of [...this.stateListeners]) listener();
      }),
      this.current.onDidClose(() => this.closed.fire()),
    ];
  }
}
