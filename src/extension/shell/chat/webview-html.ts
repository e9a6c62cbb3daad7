// The chat webview's options and HTML: strict CSP with a per-load nonce, local resources
// from media/ only, no remote content (the document itself: webview-document.ts).

import { randomBytes } from "node:crypto";
import * as vscode from "vscode";
import { webviewDocument } from "./webview-document";

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, "media")],
    retainContextWhenHidden: false,
  };
}

export function renderWebviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  return webviewDocument({
    cspSource: webview.cspSource,
    nonce: randomBytes(16).toString("base64"),
    media: (...path) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "media", ...path)).toString(),
  });
}
