// The two questions Apply may ask before it changes anything: create a file that does not
// exist yet, and which file a block without a target goes to. Tests answer them through the
// testing API instead of the UI (a modal dialog cannot be clicked from the extension host).

import * as vscode from "vscode";

export interface ApplyPrompts {
  /** True to create `label`. */
  confirmCreate(label: string): Promise<boolean>;
  /** A workspace-relative path from `paths` (the first ones are the likeliest), or undefined when dismissed. */
  pickFile(paths: readonly string[], placeHolder: string): Promise<string | undefined>;
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
};

/** Answers given ahead of time (tests): each is used once, then the real prompt is back. */
export class ScriptedPrompts implements ApplyPrompts {
  private create: boolean[] = [];
  private picks: Array<string | undefined> = [];

  constructor(private readonly fallback: ApplyPrompts) {}

  answer(answers: { readonly create?: boolean; readonly pick?: string | null }): void {
    if (answers.create !== undefined) this.create.push(answers.create);
    if (answers.pick !== undefined) this.picks.push(answers.pick ?? undefined);
  }

  confirmCreate(label: string): Promise<boolean> {
    return this.create.length > 0 ? Promise.resolve(this.create.shift()!) : this.fallback.confirmCreate(label);
  }

  pickFile(paths: readonly string[], placeHolder: string): Promise<string | undefined> {
    return this.picks.length > 0 ? Promise.resolve(this.picks.shift()) : this.fallback.pickFile(paths, placeHolder);
  }
}
