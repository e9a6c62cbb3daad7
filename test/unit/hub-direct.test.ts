// A mirror (HF_ENDPOINT) that serves a file itself, without the hub's redirect: its own
// X-Linked-Etag names the file. Before, only a redirect's header was read, so such a mirror's
// unpinned model was refused as unverifiable. A CDN's header after a redirect is still never read.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { fetchThroughHub } from "../../src/extension/models/hub-redirects";

const SHA = "a".repeat(64);
const OTHER = "b".repeat(64);
let server: Server;
let base = "";

before(async () => {
  server = createServer((req, res) => {
    if (req.url === "/direct") {
      res.writeHead(200, { "x-linked-etag": `"${SHA}"`, "content-length": "2" });
      res.end("ok");
    } else if (req.url === "/redirect") {
      res.writeHead(302, { location: "/cdn" });
      res.end();
    } else {
      res.writeHead(200, { "x-linked-etag": `"${OTHER}"`, "content-length": "2" });
      res.end("ok");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

describe("the sha256 of a file served without a redirect", () => {
  it("is read from the answering server's X-Linked-Etag", async () => {
    const { response, linkedSha256 } = await fetchThroughHub(`${base}/direct`, { headers: {} });
    await response.body?.cancel();
    assert.equal(linkedSha256, SHA);
  });

  it("conflicting with the pin ends the request", async () => {
    await assert.rejects(fetchThroughHub(`${base}/direct`, { headers: {}, pinnedSha256: OTHER }), /sha256|checksum/i);
  });

  it("after a redirect, the CDN's X-Linked-Etag is not read", async () => {
    const { response, linkedSha256 } = await fetchThroughHub(`${base}/redirect`, { headers: {} });
    await response.body?.cancel();
    assert.equal(linkedSha256, undefined);
  });
});
