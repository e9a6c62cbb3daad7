import type * as vscode from "vscode";

/** Base for objects that own VS Code resources: dispose() is idempotent and cascades. */
export abstract class Disposable implements vscode.Disposable {
  private readonly owned: vscode.Disposable[] = [];
  private disposedFlag = false;

  get isDisposed(): boolean {
    return this.disposedFlag;
  }

  protected own<T extends vscode.Disposable>(disposable: T): T {
    if (this.disposedFlag) disposable.dispose();
    else this.owned.push(disposable);
    return disposable;
  }

  dispose(): void {
    if (this.disposedFlag) return;
    this.disposedFlag = true;
    this.onDispose();
    for (const d of this.owned.splice(0).reverse()) {
      try {
        d.dispose();
      } catch {
        // keep disposing the rest
      }
    }
  }

  protected onDispose(): void {}
}
