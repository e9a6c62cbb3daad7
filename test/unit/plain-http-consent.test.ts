import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isPlainHttpToAnotherHost, PlainHttpKeyConsent, type ConsentMemory, type PlainHttpAnswer } from "../../src/extension/shell/settings/plain-http-consent";

function memory(): ConsentMemory & { readonly stored: Map<string, PlainHttpAnswer> } {
  const stored = new Map<string, PlainHttpAnswer>();
  return { stored, get: (o) => stored.get(o), set: async (o, a) => void stored.set(o, a) };
}

describe("an API key over plain http", () => {
  it("needs consent only for http to another host", () => {
    for (const origin of ["http://gpu-box:8080", "http://10.0.0.5:8000", "http://[fe80::1]:8080", "http://example.com"]) {
      assert.equal(isPlainHttpToAnotherHost(origin), true, origin);
    }
    for (const origin of ["https://gpu-box:8080", "http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080", "http://model.localhost"]) {
      assert.equal(isPlainHttpToAnotherHost(origin), false, origin);
    }
  });

  it("asks once per origin, however many requests wait, and remembers the answer", async () => {
    const asked: string[] = [];
    let answer!: (a: PlainHttpAnswer) => void;
    const consent = new PlainHttpKeyConsent(memory(), (origin) => {
      asked.push(origin);
      return new Promise((resolve) => (answer = resolve));
    });
    const waiting = [consent.maySend("http://gpu-box:8080"), consent.maySend("http://gpu-box:8080")];
    await Promise.resolve();
    answer("send");
    assert.deepEqual(await Promise.all(waiting), [true, true]);
    assert.equal(await consent.maySend("http://gpu-box:8080"), true);
    assert.deepEqual(asked, ["http://gpu-box:8080"]);
  });

  it("keeps the key back when refused, and asks again after a dismissed question", async () => {
    const answers: (PlainHttpAnswer | undefined)[] = [undefined, "dontSend"];
    const mem = memory();
    const consent = new PlainHttpKeyConsent(mem, async () => answers.shift());
    assert.equal(await consent.maySend("http://gpu-box:8080"), false);
    assert.equal(mem.stored.size, 0, "a dismissed question was remembered");
    assert.equal(await consent.maySend("http://gpu-box:8080"), false);
    assert.equal(mem.stored.get("http://gpu-box:8080"), "dontSend");
    assert.equal(await consent.maySend("http://gpu-box:8080"), false);
    assert.equal(answers.length, 0);
  });

  it("never asks for https or loopback", async () => {
    const consent = new PlainHttpKeyConsent(memory(), async () => assert.fail("asked"));
    assert.equal(await consent.maySend("https://gpu-box:8080"), true);
    assert.equal(await consent.maySend("http://127.0.0.1:8080"), true);
  });
});
