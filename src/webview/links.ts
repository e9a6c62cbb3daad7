// Links in model output must never navigate the webview itself (that would replace the
// chat with an arbitrary page). VS Code's webview host opens http(s) links externally on
// its own click handler; we only make sure the webview document stays put.
export function handleLinkClicks(root: HTMLElement): void {
  const stay = (event: MouseEvent): void => {
    const anchor = (event.target as Element | null)?.closest?.("a");
    if (anchor && root.contains(anchor)) event.preventDefault();
  };
  root.addEventListener("click", stay);
  // Middle-click would otherwise try to open the link in a new window.
  root.addEventListener("auxclick", stay);
}
