// What the thin activation must stand in for, read from the extension's own package.json
// (VS Code hands it over parsed, as `context.extension.packageJSON`): the manifest stays the one
// source of every command, view, panel type, model vendor and chat participant id.

export interface ContributedIds {
  readonly commands: readonly string[];
  /** Webview views (`contributes.views`, type `webview`). */
  readonly webviewViews: readonly string[];
  /** Webview panel types restored after a reload (`onWebviewPanel:` activation events). */
  readonly webviewPanels: readonly string[];
  readonly modelVendors: readonly string[];
  readonly chatParticipants: readonly string[];
}

/** The ids in a package.json; anything malformed is an error that names the field (a broken build, not a user's input). */
export function contributedIds(packageJson: unknown): ContributedIds {
  const manifest = record(packageJson, "package.json");
  const contributes = record(manifest.contributes ?? {}, "contributes");
  const views = Object.values(record(contributes.views ?? {}, "contributes.views")).flatMap((list, i) => array(list, `contributes.views[${i}]`));
  return {
    commands: array(contributes.commands ?? [], "contributes.commands").map((c, i) => text(record(c, `commands[${i}]`).command, `commands[${i}].command`)),
    webviewViews: views.map((v, i) => record(v, `views[${i}]`)).filter((v) => v.type === "webview").map((v, i) => text(v.id, `views[${i}].id`)),
    webviewPanels: array(manifest.activationEvents ?? [], "activationEvents")
      .map((e, i) => text(e, `activationEvents[${i}]`))
      .filter((e) => e.startsWith("onWebviewPanel:"))
      .map((e) => e.slice("onWebviewPanel:".length)),
    modelVendors: array(contributes.languageModelChatProviders ?? [], "languageModelChatProviders").map((p, i) => text(record(p, `languageModelChatProviders[${i}]`).vendor, `languageModelChatProviders[${i}].vendor`)),
    chatParticipants: array(contributes.chatParticipants ?? [], "chatParticipants").map((p, i) => text(record(p, `chatParticipants[${i}]`).id, `chatParticipants[${i}].id`)),
  };
}

function record(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`package.json: ${where} is not an object`);
  return value as Record<string, unknown>;
}

function array(value: unknown, where: string): readonly unknown[] {
  if (!Array.isArray(value)) throw new Error(`package.json: ${where} is not a list`);
  return value;
}

function text(value: unknown, where: string): string {
  if (typeof value !== "string" || value === "") throw new Error(`package.json: ${where} is not a string`);
  return value;
}
