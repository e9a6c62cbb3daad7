// The chat webview's HTML document and its Content-Security-Policy, without `vscode`: the
// panel renders it with the webview's URIs, and the webview tests serve this very document
// (so the CSP they check is the product's, not a copy).

export interface WebviewDocumentOptions {
  /** Origin allowed for styles, fonts and images (the webview's cspSource). */
  readonly cspSource: string;
  /** Per-load nonce: only scripts carrying it run. */
  readonly nonce: string;
  /** The URI of a file under media/ as the webview may load it. */
  readonly media: (...path: string[]) => string;
}

function webviewCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join("; ");
}

export function webviewDocument({ cspSource, nonce, media }: WebviewDocumentOptions): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${webviewCsp(cspSource, nonce)}">
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
