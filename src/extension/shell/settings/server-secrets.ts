// The remote backend's API key, in VS Code's SecretStorage (never in settings.json), one per
// server origin: a key set for one server is never sent to another one configured later
// (and the remote backend sends it to that origin only, redirects included). The command
// *Stateful Chat: Set Server API Key…* sets or removes the key of the configured server.

import * as vscode from "vscode";
import { PlainHttpKeyConsent, type PlainHttpAnswer } from "./plain-http-consent";
import { readSettings, SETTINGS_SECTION } from "./settings";

const SECRET_PREFIX = "statefulChat.serverApiKey:";

/** The origin of a server URL, or undefined when it is not an http(s) URL. */
function serverOrigin(url: string): string | undefined {
  try {
    const parsed = new URL(url.trim());
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}

const CONSENT_PREFIX = "statefulChat.plainHttpKey:";

async function askPlainHttp(origin: string): Promise<PlainHttpAnswer | undefined> {
  const send = "Send Over HTTP";
  const dontSend = "Don't Send";
  const choice = await vscode.window.showWarningMessage(
    `Stateful Chat: ${origin} is plain http:// on another machine. The API key would travel unencrypted, readable by anyone on the network path. Use an https:// URL if the server offers one.`,
    { modal: true },
    send,
    dontSend,
  );
  return choice === send ? "send" : choice === dontSend ? "dontSend" : undefined;
}

export class ServerSecrets {
  private readonly consent: PlainHttpKeyConsent;

  constructor(
    private readonly storage: vscode.SecretStorage,
    memory: vscode.Memento,
  ) {
    this.consent = new PlainHttpKeyConsent(
      {
        get: (origin) => memory.get<PlainHttpAnswer>(CONSENT_PREFIX + origin),
        set: async (origin, answer) => memory.update(CONSENT_PREFIX + origin, answer),
      },
      askPlainHttp,
    );
  }

  /** The key stored for `url`'s origin. */
  async get(url: string): Promise<string | undefined> {
    const origin = serverOrigin(url);
    return origin ? ((await this.storage.get(SECRET_PREFIX + origin)) ?? undefined) : undefined;
  }

  async set(url: string, key: string): Promise<void> {
    const origin = serverOrigin(url);
    if (!origin) throw new Error(`not an http(s) URL: ${url}`);
    if (key) await this.storage.store(SECRET_PREFIX + origin, key);
    else await this.storage.delete(SECRET_PREFIX + origin);
  }

  /**
   * Reads the key of `url`'s origin on every call: a key set later applies to the next request.
   * Over plain http to another host the user is asked once per origin whether to send it.
   */
  reader(url: string): () => Promise<string | undefined> {
    return async () => {
      const key = await this.get(url);
      const origin = serverOrigin(url);
      if (!key || !origin) return key;
      return (await this.consent.maySend(origin)) ? key : undefined;
    };
  }
}

export function registerServerSecretCommands(context: vscode.ExtensionContext, secrets: ServerSecrets): void {
  context.subscriptions.push(
    vscode.commands.registerCommand("statefulChat.setServerApiKey", async () => {
      const url = readSettings().server.url;
      const origin = serverOrigin(url);
      if (!origin) {
        const choice = await vscode.window.showWarningMessage("Set the server's URL first (statefulChat.server.url, e.g. http://gpu-box:8080).", "Open Settings");
        if (choice) await vscode.commands.executeCommand("workbench.action.openSettings", `${SETTINGS_SECTION}.server`);
        return;
      }
      const key = await vscode.window.showInputBox({
        title: `API key for ${origin}`,
        prompt: `Kept in VS Code's secret storage and sent only to ${origin}. Leave empty to remove the stored key.`,
        password: true,
        ignoreFocusOut: true,
      });
      if (key === undefined) return;
      await secrets.set(url, key.trim());
      void vscode.window.showInformationMessage(key.trim() ? `Stateful Chat: API key stored for ${origin}.` : `Stateful Chat: API key for ${origin} removed.`);
    }),
  );
}
