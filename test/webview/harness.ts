// Serves the real webview bundle (media/dist) under the same CSP as the extension's panel,
// with a test double for acquireVsCodeApi, and drives it in headless Chromium.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, normalize, resolve } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { webviewDocument } from "../../src/extension/shell/chat/webview-document";
import type { HostToWebview, TranscriptEntry, WebviewToHost } from "../../src/webview/protocol/messages";

const ROOT = resolve(import.meta.dirname, "../..");
const FIXTURES = join(ROOT, "test/webview/fixtures");
const DIST = join(ROOT, "media/dist");
const CHROMIUM = "/usr/bin/chromium";
const NONCE = "harness-nonce-123";

export type Theme = "dark" | "light";

const TYPES: Record<string, string> = { ".js": "text/javascript", ".css": "text/css", ".ttf": "font/ttf", ".html": "text/html" };

// The test double stands in for what VS Code injects: it records posted messages and keeps
// setState in sessionStorage so a reload behaves like a hidden/shown panel.
const ACQUIRE_VSCODE_API_DOUBLE = `
(() => {
  const double = { posted: [], cspViolations: [], acquisitions: 0 };
  window.vscodeApiDouble = double;
  document.addEventListener("securitypolicyviolation", (e) => double.cspViolations.push(e.violatedDirective + " " + e.blockedURI));
  window.acquireVsCodeApi = function acquireVsCodeApi() {
    double.acquisitions++;
    if (double.acquisitions > 1) throw new Error("acquireVsCodeApi may only be called once");
    return {
      postMessage(message) { double.posted.push(JSON.parse(JSON.stringify(message))); },
      getState() { const saved = sessionStorage.getItem("vscodeState"); return saved === null ? undefined : JSON.parse(saved); },
      setState(state) { sessionStorage.setItem("vscodeState", JSON.stringify(state)); return state; },
    };
  };
})();`;

/**
 * The product's own document (shell/chat/webview-document.ts, its CSP included), with what VS Code
 * adds around it: the theme's variables, the body's theme class and acquireVsCodeApi (here a
 * test double, carrying the nonce like any script the CSP lets run).
 */
function harnessHtml(origin: string, theme: Theme): string {
  const html = webviewDocument({ cspSource: origin, nonce: NONCE, media: (...path) => `${origin}/media/${path.join("/")}` });
  return html
    .replace("<head>\n", `<head>\n<link rel="stylesheet" href="/fixtures/theme-${theme}.css">\n<script nonce="${NONCE}">${ACQUIRE_VSCODE_API_DOUBLE}</script>\n`)
    .replace("<body>", `<body class="vscode-${theme}">`);
}

function serve(): Promise<Server> {
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const origin = `http://${request.headers.host}`;
    if (url.pathname === "/") {
      const theme: Theme = url.searchParams.get("theme") === "light" ? "light" : "dark";
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(harnessHtml(origin, theme));
      return;
    }
    const [base, prefix] = url.pathname.startsWith("/media/dist/") ? [DIST, "/media/dist/"] : url.pathname.startsWith("/fixtures/") ? [FIXTURES, "/fixtures/"] : [undefined, ""];
    const file = base && normalize(join(base, url.pathname.slice(prefix.length)));
    if (!file || !file.startsWith(base) || !existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
  });
  return new Promise((resolvePromise) => server.listen(0, "127.0.0.1", () => resolvePromise(server)));
}

/** One browser + server per test file; a fresh page per test. */
export class WebviewHarness {
  private constructor(
    private readonly server: Server,
    private readonly context: BrowserContext,
    private readonly profile: string,
  ) {}

  static async start(): Promise<WebviewHarness> {
    if (!existsSync(join(DIST, "webview.js"))) throw new Error("media/dist/webview.js missing: run `node esbuild.mjs` (test/webview/run.sh does)");
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: run test/webview/run.sh (installs it)`);
    const server = await serve();
    const profile = mkdtempSync(join(tmpdir(), "webview-test-"));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 560, height: 900 },
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    return new WebviewHarness(server, context, profile);
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async open(theme: Theme = "dark"): Promise<ChatPage> {
    const page = await this.context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    await page.goto(`${this.origin}/?theme=${theme}`);
    const chat = new ChatPage(page, errors);
    await chat.waitForPosted((m) => m.type === "ready");
    return chat;
  }

  async stop(): Promise<void> {
    await this.context.close();
    await new Promise((r) => this.server.close(r));
    rmSync(this.profile, { recursive: true, force: true });
  }
}

export class ChatPage {
  constructor(
    readonly page: Page,
    /** Uncaught page errors; tests assert it stays empty. */
    readonly errors: string[],
  ) {}

  /** Delivers host messages (HostToWebview, or anything a test sends to see it ignored) the way VS Code does (a window message event). */
  async push(...messages: unknown[]): Promise<void> {
    await this.page.evaluate((list) => {
      for (const message of list) window.postMessage(message, "*");
    }, messages);
    // Message events are tasks: wait until they have all been dispatched.
    await this.page.evaluate(() => new Promise((r) => setTimeout(r, 0)));
  }

  async posted(): Promise<WebviewToHost[]> {
    return this.page.evaluate(() => (window as unknown as { vscodeApiDouble: { posted: WebviewToHost[] } }).vscodeApiDouble.posted);
  }

  async waitForPosted(predicate: (message: WebviewToHost) => boolean): Promise<WebviewToHost> {
    for (;;) {
      const found = (await this.posted()).find(predicate);
      if (found) return found;
      await this.page.waitForTimeout(20);
    }
  }

  async cspViolations(): Promise<string[]> {
    return this.page.evaluate(() => (window as unknown as { vscodeApiDouble: { cspViolations: string[] } }).vscodeApiDouble.cspViolations);
  }

  /** Resolves after the next two animation frames, i.e. after any batched render ran. */
  async nextFrames(): Promise<void> {
    await this.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  }

  async counters(): Promise<{ streamRenders: number; tokenMessages: number }> {
    return this.page.evaluate(() => ({ ...window.statefulChatTestHooks!.counters }));
  }

  entry(id: number | string) {
    return typeof id === "number" ? this.page.getByTestId("entry").nth(id) : this.page.locator(`[data-testid="entry"][data-entry-id="${id}"]`);
  }

  async close(): Promise<void> {
    await this.page.close();
  }
}

/** An init message with a typical model. */
export function init(transcript: readonly TranscriptEntry[], busy = false): HostToWebview {
  return { type: "init", transcript, busy, model: { name: "SmolLM2-135M-Instruct", backend: "llama.cpp", capacity: 4096, details: "Q4_1 GGUF · 2 threads" } };
}
