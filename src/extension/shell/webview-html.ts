// The chat webview's HTML: strict CSP with a per-load nonce, local resources from media/
// only, no remote content.

import { randomBytes } from "node:crypto";
import * as vscode from "vscode";

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, "media")],
    retainContextWhenHidden: false,
  };
}

export function renderWebviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = randomBytes(16).toString("base64");
  const media = (...path: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "media", ...path));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${media("dist", "codicons", "codicon.css")}">
<link rel="stylesheet" href="${media("dist", "webview.css")}">
<title>Stateful Chat</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${media("dist", "webview.js")}"></script>
</body>
</html>`;
}
