// The questions Apply may ask before it changes anything: create a file that does not exist
// yet, which file a block without a target goes to, and whether to change a file whose
// changes run commands (.vscode/tasks.json). Tests answer them through the
// testing API instead of the UI (a modal dialog cannot be clicked from the extension host).

import * as vscode from "vscode";

export interface ApplyPrompts {
  /** True to create `label`. */
  confirmCreate(label: string): Promise<boolean>;
  /** A workspace-relative path from `paths` (the first ones are the likeliest), or undefined when dismissed. */
  pickFile(paths: readonly string[], placeHolder: string): Promise<string | undefined>;
  /** True to change `label` although `reason` says why it is sensitive (a modal dialog: dismissing it says no). */
  confirmSensitive(label: string, reason: string): Promise<boolean>;
}

export const vscodePrompts: ApplyPrompts = {
  async confirmCreate(label) {
    const create = "Create";
    const answer = await vscode.window.showWarningMessage(`${label} does not exist. Create it with the code block?`, { modal: true }, create);
    return answer === create;
  },
  async pickFile(paths, placeHolder) {
    return vscode.window.showQuickPick([...paths], { placeHolder, matchOnDescription: true });
  },
  async confirmSensitive(label, reason) {
    const apply = "Apply";
    const answer = await vscode.window.showWarningMessage(`Apply the code block to ${label}?`, { modal: true, detail: reason }, apply);
    return answer === apply;
  },
};

/** Answers given ahead of time (tests): each is used once, then the real prompt is back. */
export class ScriptedPrompts implements ApplyPrompts {
  private create: boolean[] = [];
  private picks: Array<string | undefined> = [];
  private sensitive: boolean[] = [];

  constructor(private readonly fallback: ApplyPrompts) {}

  answer(answers: { readonly create?: boolean; readonly pick?: string | null; readonly sensitive?: boolean }): void {
    if (answers.create !== undefined) this.create.push(answers.create);
    if (answers.pick !== undefined) this.picks.push(answers.pick ?? undefined);
    if (answers.sensitive !== undefined) this.sensitive.push(answers.sensitive);
  }

  confirmCreate(label: string): Promise<boolean> {
    return this.create.length > 0 ? Promise.resolve(this.create.shift()!) : this.fallback.confirmCreate(label);
  }

  pickFile(paths: readonly string[], placeHolder: string): Promise<string | undefined> {
    return this.picks.length > 0 ? Promise.resolve(this.picks.shift()) : this.fallback.pickFile(paths, placeHolder);
  }

  confirmSensitive(label: string, reason: string): Promise<boolean> {
    return this.sensitive.length > 0 ? Promise.resolve(this.sensitive.shift()!) : this.fallback.confirmSensitive(label, reason);
  }
}
