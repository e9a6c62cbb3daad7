// Links in model output must never navigate the webview itself (that would replace the
// chat with an arbitrary page). The click is cancelled here and http(s) links are handed to
// the host, which opens them in the user's browser (vscode.env.openExternal).
export function handleLinkClicks(root: HTMLElement, open: (url: string) => void): void {
  const stay = (event: MouseEvent): void => {
    const anchor = (event.target as Element | null)?.closest?.("a");
    if (!anchor || !root.contains(anchor)) return;
    event.preventDefault();
    const href = anchor.getAttribute("href") ?? "";
    if (/^https?:\/\//i.test(href)) open(href);
  };
  root.addEventListener("click", stay);
  // Middle-click would otherwise try to open the link in a new window.
  root.addEventListener("auxclick", stay);
}
