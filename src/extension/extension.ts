// The extension's entry (out/extension.js): a thin activation. It registers stand-ins for
// what VS Code must find at activation and loads the features (out/extension-features.js)
// on their first use; see activation/lazy-features.ts.

import { join } from "node:path";
import * as vscode from "vscode";
import { contributedIds } from "./activation/contributed-ids";
import type { ActivateFeatures } from "./activation/feature-hosts";
import { LazyFeatures } from "./activation/lazy-features";
import type { StatefulChatApi } from "./features";

export type { StatefulChatApi } from "./features";

/** The features bundle, beside this one; not bundled into it (that is the point). */
const FEATURES_BUNDLE = "extension-features.js";

export function activate(context: vscode.ExtensionContext): StatefulChatApi {
  const features = new LazyFeatures<StatefulChatApi>(vscode, context, contributedIds(context.extension.packageJSON), () => {
    // A runtime path, so esbuild leaves this require alone.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded at run time, not bundled
    const bundle = require(join(__dirname, FEATURES_BUNDLE)) as { activateFeatures: ActivateFeatures<StatefulChatApi> };
    return bundle.activateFeatures;
  });
  context.subscriptions.push(features);
  // The integration tests drive the extension through the API the features return: load them now.
  return context.extensionMode === vscode.ExtensionMode.Test ? features.load() : {};
}

export function deactivate(): void {}
