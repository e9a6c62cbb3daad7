// The chat surfaces: an editor tab and the side bar view host the same chat through one
// interface; the view outlives its chats; a chat moves from the view to a tab and stays open.
// (VS Code's WebviewPanel and WebviewView are not reachable outside an extension host: the
// doubles below are named as such and do only what the adapters call.)
import assert from "node:assert/strict";
import { it } from "node:test";
import type * as vscode from "vscode";
import { editorSurface, MovableSurface, viewSurface, type PanelLike, type ViewLike } from "../../src/extension/shell/chat/chat-surface";

class Listeners {
  private list: Array<() => void> = [];
  readonly on = (listener: () => void) => {
    this.list.push(listener);
    return { dispose: () => void (this.list = this.list.filter((l) => l !== listener)) };
  };
  fire(): void {
    for (const l of [...this.list]) l();
  }
  get count(): number {
    return this.list.length;
  }
}

const webviewDouble = (name: string) => ({ name }) as unknown as vscode.Webview;

function panelDouble() {
  const viewState = new Listeners();
  const disposed = new Listeners();
  const calls: string[] = [];
  const panel = {
    webview: webviewDouble("panel"),
    title: "Stateful Chat",
    visible: true,
    active: true,
    reveal: (column?: unknown, preserveFocus?: boolean) => void calls.push(`reveal ${String(column)} ${String(preserveFocus)}`),
    dispose: () => {
      calls.push("dispose");
      disposed.fire();
    },
    onDidChangeViewState: viewState.on,
    onDidDispose: disposed.on,
  } satisfies PanelLike;
  return { panel, viewState, disposed, calls };
}

function viewDouble() {
  const visibility = new Listeners();
  const disposed = new Listeners();
  const shown: Array<boolean | undefined> = [];
  const view = {
    webview: webviewDouble("view"),
    visible: true,
    description: undefined as string | undefined,
    show: (preserveFocus?: boolean) => void shown.push(preserveFocus),
    onDidChangeVisibility: visibility.on,
    onDidDispose: disposed.on,
  } satisfies ViewLike;
  return { view, visibility, disposed, shown };
}

it("an editor tab: title, state, reveal and close go to the panel", () => {
  const { panel, viewState, calls } = panelDouble();
  const surface = editorSurface(panel);
  assert.equal(surface.kind, "editor");
  surface.title = "Explain the cache";
  assert.equal(panel.title, "Explain the cache");
  let changes = 0;
  let closed = 0;
  surface.onDidChangeViewState(() => changes++);
  surface.onDidClose(() => closed++);
  viewState.fire();
  assert.equal(changes, 1);
  surface.reveal(true);
  surface.close();
  assert.deepEqual(calls, ["reveal undefined true", "dispose"]);
  assert.equal(closed, 1, "closing the tab closes the chat");
});

it("the view: the title is its description, reveal keeps the focus, close detaches the chat only", () => {
  const { view, visibility, disposed, shown } = viewDouble();
  const surface = viewSurface(view);
  assert.equal(surface.kind, "view");
  surface.title = "Explain the cache";
  assert.equal(view.description, "Explain the cache");
  surface.title = "Stateful Chat";
  assert.equal(view.description, "", "an untitled chat leaves the view's name alone");
  let changes = 0;
  let closed = 0;
  surface.onDidChangeViewState(() => changes++);
  surface.onDidClose(() => closed++);
  visibility.fire();
  assert.equal(changes, 1);
  assert.equal(surface.active, true, "a visible view is the chat the user is in");
  surface.reveal(true);
  assert.deepEqual(shown, [true]);
  surface.close();
  assert.equal(closed, 1);
  assert.equal(disposed.count, 0, "the chat no longer listens to the view");
  assert.equal(surface.visible, false, "a detached chat is not shown");
  visibility.fire();
  assert.equal(changes, 1, "nor hears its visibility");
  surface.reveal(false);
  surface.title = "late";
  assert.deepEqual(shown, [true]);
  assert.equal(view.description, "", "nor writes to it");
  surface.close();
  assert.equal(closed, 1, "closes once");
  // The next chat on the same view.
  const next = viewSurface(view);
  let nextClosed = 0;
  next.onDidClose(() => nextClosed++);
  disposed.fire();
  assert.equal(nextClosed, 1, "VS Code disposing the view closes the chat on it");
});

it("a chat moves from the view to an editor tab and stays open; its listeners follow", () => {
  const v = viewDouble();
  const p = panelDouble();
  const surface = new MovableSurface(viewSurface(v.view));
  surface.title = "Explain the cache";
  let changes = 0;
  let closed = 0;
  surface.onDidChangeViewState(() => changes++);
  surface.onDidClose(() => closed++);
  surface.moveTo(editorSurface(p.panel));
  assert.equal(closed, 0, "the chat stays open");
  assert.equal(surface.kind, "editor");
  assert.equal(surface.webview, p.panel.webview);
  assert.equal(p.panel.title, "Explain the cache", "the title goes with it");
  assert.equal(changes, 1, "moving is a change of view state");
  v.visibility.fire();
  v.disposed.fire();
  assert.deepEqual([changes, closed], [1, 0], "the view no longer reaches the chat");
  p.viewState.fire();
  assert.equal(changes, 2);
  p.panel.dispose();
  assert.equal(closed, 1, "closing its new tab closes it");
});
