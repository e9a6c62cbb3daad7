// Markdown rendering, highlighting, sanitization and code-block buttons, in the real bundle.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { init, WebviewHarness, type ChatPage } from "./harness";

describe("webview markdown", () => {
  let harness: WebviewHarness;
  let chat: ChatPage;

  before(async () => {
    harness = await WebviewHarness.start();
  });
  after(async () => {
    await harness.stop();
  });

  async function showReply(text: string): Promise<void> {
    chat = await harness.open();
    await chat.push(init([{ id: "a1", role: "assistant", text, status: "complete" }]));
  }

  it("renders markdown and highlights fenced code", async () => {
    await showReply("# Title\n\nSome **bold** and `inline` code.\n\n- one\n- two\n\n```ts\nconst x: number = 42; // answer\n```\n");
    const body = chat.entry("a1").locator(".entry-body");
    assert.equal(await body.locator("h1").textContent(), "Title");
    assert.equal(await body.locator("strong").textContent(), "bold");
    assert.equal(await body.locator("li").count(), 2);
    const code = body.locator("pre code");
    assert.match((await code.getAttribute("class")) ?? "", /hljs language-ts/);
    assert.equal(await code.locator(".hljs-keyword").first().textContent(), "const");
    assert.equal(await code.locator(".hljs-number").textContent(), "42");
    assert.equal(await code.locator(".hljs-comment").textContent(), "// answer");
    assert.equal(await body.locator(".code-language").textContent(), "ts");
    assert.deepEqual(chat.errors, []);
    await chat.close();
  });

  it("neutralizes HTML and scripts in model output", async () => {
    const evil = [
      "<img src=x onerror=\"window.pwned=1\">",
      "<script>window.pwned=2</script>",
      "[click](javascript:window.pwned=3)",
      "<a href=\"#\" onclick=\"window.pwned=4\">x</a>",
      "![img](x onerror=window.pwned=5)",
    ].join("\n\n");
    await showReply(evil);
    const body = chat.entry("a1").locator(".entry-body");
    assert.equal(await body.locator("img, script, [onerror], [onclick]").count(), 0);
    assert.equal(await body.locator("a[href^='javascript']").count(), 0);
    // Raw HTML is shown as text, not interpreted.
    assert.match((await body.textContent()) ?? "", /<img src=x onerror=/);
    assert.equal(await body.locator("a").count(), 0);
    assert.equal(await chat.page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
    assert.deepEqual(await chat.cspViolations(), []);
    await chat.close();
  });

  it("does not navigate the webview when a link is clicked; asks the host to open it", async () => {
    await showReply("See [the docs](https://example.com/docs) and https://example.org.");
    const url = chat.page.url();
    await chat.page.locator(".entry-body a").first().click();
    await chat.nextFrames();
    assert.equal(chat.page.url(), url);
    assert.equal(await chat.page.getByTestId("composer").count(), 1);
    const opened = (await chat.posted()).filter((m) => m.type === "openLink");
    assert.deepEqual(opened, [{ type: "openLink", url: "https://example.com/docs" }]);
    await chat.close();
  });

  it("Copy and Insert at Cursor post the raw code of their block", async () => {
    const first = "def add(a, b):\n    return a + b  # <sum> & \"more\"";
    const second = "echo 'second block'";
    await showReply(`Two blocks:\n\n\`\`\`python\n${first}\n\`\`\`\n\nand\n\n\`\`\`bash\n${second}\n\`\`\`\n`);
    await chat.page.getByTestId("copy-code").nth(0).click();
    await chat.page.getByTestId("insert-code").nth(1).click();
    await chat.page.getByTestId("insert-code").nth(0).click();
    const posted = (await chat.posted()).filter((m) => m.type === "copyCode" || m.type === "insertCode");
    assert.deepEqual(posted, [
      { type: "copyCode", code: first },
      { type: "insertCode", code: second },
      { type: "insertCode", code: first },
    ]);
    assert.equal(await chat.page.getByTestId("copy-code").first().getAttribute("aria-label"), "Copy");
    await chat.close();
  });

  it("shows code in unknown languages as plain escaped text", async () => {
    await showReply("```brainfuck\n<>+-.,[]\n```");
    const code = chat.entry("a1").locator("pre code");
    assert.equal(await code.textContent(), "<>+-.,[]\n");
    assert.equal(await code.locator("span").count(), 0);
    await chat.close();
  });
});
