// User settings for the code-server profile. The installed VSIX has no .cache of its own,
// so the model path must point at the repo's fetched default model.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

function mergeInto(file: string, settings: Readonly<Record<string, unknown>>): void {
  let existing: Record<string, unknown> = {};
  try {
    existing = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch {
    // none yet, or hand-edited with comments: ours win
  }
  writeFileSync(file, `${JSON.stringify({ ...existing, ...settings }, null, 2)}\n`);
}

/**
 * Writes `settings` to the profile's User settings, and our own (`statefulChat.*`) also to its
 * Machine settings: code-server's extension host is remote, and VS Code applies a
 * machine-scoped setting (model paths, servers) there only from the remote's own settings,
 * never from the User file, as it does for any remote window.
 */
export function writeUserSettings(userDataDir: string, settings: Readonly<Record<string, unknown>>): string {
  const file = join(userDataDir, "User", "settings.json");
  mkdirSync(join(userDataDir, "User"), { recursive: true });
  mergeInto(file, settings);
  const ours = Object.fromEntries(Object.entries(settings).filter(([key]) => key.startsWith("statefulChat.")));
  mkdirSync(join(userDataDir, "Machine"), { recursive: true });
  mergeInto(join(userDataDir, "Machine", "settings.json"), ours);
  return file;
}

export interface DefaultSettingsOptions {
  /**
   * Turn Workspace Trust off in the profile. Defaults to false: `npm start` keeps Restricted
   * Mode for a folder the user has not trusted. Only the test harnesses set it, for their
   * own throwaway workspaces (with StartOptions.disableWorkspaceTrust).
   */
  readonly disableWorkspaceTrust?: boolean;
}

/** What every run wants: no welcome page, the Chat view usable offline, and the model to load. */
export function defaultSettings(modelPath: string | undefined, options: DefaultSettingsOptions = {}): Record<string, unknown> {
  return {
    "workbench.startupEditor": "none",
    // Written either way, not left out: `npm start`'s profile persists across runs, and earlier
    // versions of this launcher wrote `false` there.
    "security.workspace.trust.enabled": !options.disableWorkspaceTrust,
    "telemetry.telemetryLevel": "off",
    // VS Code's own Chat view without a GitHub sign-in, so our models and @stateful work there offline.
    "chat.allowAnonymousAccess": true,
    ...(modelPath ? { "statefulChat.modelPath": modelPath } : {}),
  };
}
