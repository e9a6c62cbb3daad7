// VS Code's language model API in the real extension host, served by our provider (vendor
// `stateful-chat`): requests sent the way the Chat view sends them (the whole history each
// time, previous replies as they were received) are served from cached sessions, so each one
// prefills only its new message; interleaved conversations stay cached; a conversation parked
// out of the pool comes back from its KV snapshot; tools round-trip on a tool-template model.

import * as assert from "node:assert/strict";
import { after, before, describe, it } from "mocha";
import * as vscode from "vscode";
import type { ServedRequest } from "../../../src/extension/shell/lm/lm-pools";
import { api, waitFor } from "./helpers";

const VENDOR = "stateful-chat";
const config = () => vscode.workspace.getConfiguration("statefulChat");

interface Answer {
  readonly text: string;
  readonly calls: vscode.LanguageModelToolCallPart[];
  readonly served: ServedRequest;
}

async function modelNamed(fragment: string): Promise<vscode.LanguageModelChat> {
  // The model list follows settings changes (the provider fires its change event).
  for (let attempt = 0; attempt < 100; attempt++) {
    const found = (await vscode.lm.selectChatModels({ vendor: VENDOR })).find((m) => m.name.includes(fragment));
    if (found) return found;
    await new Promise((r) => setTimeout(r, 200));
  }
  const names = (await vscode.lm.selectChatModels({ vendor: VENDOR })).map((m) => m.name);
  throw new Error(`no ${VENDOR} model named *${fragment}*: ${names.join(", ") || "none"}`);
}

async function send(
  chat: vscode.LanguageModelChat,
  messages: vscode.LanguageModelChatMessage[],
  options: vscode.LanguageModelChatRequestOptions = {},
  token?: vscode.CancellationToken,
  onText?: (text: string) => void,
): Promise<Answer> {
  const testing = await api();
  const before = testing.chatProviderRequests().length;
  const response = await chat.sendRequest(messages, options, token);
  let text = "";
  const calls: vscode.LanguageModelToolCallPart[] = [];
  for await (const part of response.stream) {
    if (part instanceof vscode.LanguageModelTextPart) {
      text += part.value;
      onText?.(part.value);
    } else if (part instanceof vscode.LanguageModelToolCallPart) calls.push(part);
  }
  const served = await waitFor("the request's record", () => testing.chatProviderRequests()[before], 30_000);
  return { text, calls, served };
}

/** A conversation the way the Chat view keeps it. */
class Conversation {
  readonly messages: vscode.LanguageModelChatMessage[] = [];
  readonly answers: Answer[] = [];
  constructor(private readonly chat: vscode.LanguageModelChat) {}

  async ask(question: string): Promise<Answer> {
    this.messages.push(vscode.LanguageModelChatMessage.User(question));
    const answer = await send(this.chat, this.messages);
    this.messages.push(vscode.LanguageModelChatMessage.Assistant(answer.text));
    this.answers.push(answer);
    return answer;
  }

  /** The previous request's cache held everything this one shares with it: only new tokens were prefilled. */
  assertOnlyNewPrefilled(answer: Answer, previous: Answer): void {
    const s = answer.served;
    assert.ok(s.rewound <= 8, `at most the re-tokenization of the previous reply is rewound (${s.rewound})`);
    assert.equal(s.cached, previous.served.position - s.rewound, "everything the session held is reused");
    assert.equal(s.prefilled, s.requestTokens - s.cached);
    assert.equal(s.sessionId, previous.served.sessionId);
    assert.equal(s.restored, undefined);
  }
}

const LONGER = "hello world, this is a longer text with more tokens";

describe("VS Code Chat: the stateful-chat language model provider", function () {
  this.timeout(900_000);
  let chat: vscode.LanguageModelChat;

  before(async () => {
    chat = await modelNamed("SmolLM2-135M");
  });
  // The provider keeps its engines loaded between requests; the suites after this one count engines.
  after(async () => {
    const testing = await api();
    await testing.releaseChatProvider();
    await waitFor("the provider's engines freed", () => testing.loadedEngines() === 0, 60_000);
  });

  it("lists our model with its context size, and counts tokens with the model's tokenizer", async () => {
    assert.equal(chat.vendor, VENDOR);
    // The provider's own context (statefulChat.chatProvider.contextSize `auto`: SmolLM2's 8,192 where memory allows), not the panels' 4,096.
    const contextSize = config().get<number>("contextSize")!;
    assert.ok(chat.maxInputTokens >= contextSize / 2 && chat.maxInputTokens < 8192, `maxInputTokens ${chat.maxInputTokens} within the context`);
    // Before the engine is loaded the count is an over-estimate (3 characters a token), so VS
    // Code's Chat never waits for a model load to count its prompt; afterwards it is exact.
    const few = await chat.countTokens("hello");
    const more = await chat.countTokens(LONGER);
    assert.ok(few >= 1 && more > few, `${few} < ${more}`);
    assert.ok(more <= Math.ceil(LONGER.length / 3), `never above the estimate: ${more}`);
  });

  it("a 6-request conversation prefills only each new message (and its template tokens)", async () => {
    const conversation = new Conversation(chat);
    const questions = ["What is a KV cache?", "Name a sorting algorithm.", "What is 2 + 2?", "Say hello in French.", "What is a CPU?", "Name a prime number."];
    for (const [i, question] of questions.entries()) {
      const answer = await conversation.ask(question);
      assert.ok(answer.text.trim().length > 0, `request ${i + 1} answered`);
      if (i > 0) conversation.assertOnlyNewPrefilled(answer, conversation.answers[i - 1]);
    }
    const last = conversation.answers[5].served;
    assert.ok(last.prefilled < 40 && last.cached > 150, `the sixth request reused ${last.cached} tokens and prefilled ${last.prefilled}`);
    // What VS Code was told is what the engine holds: the longest input and the longest reply together are its capacity.
    const maxOutput = Math.min(config().get<number>("reply.maxTokens")!, Math.floor(last.capacity / 2));
    assert.equal(chat.maxInputTokens, last.capacity - maxOutput, `maxInputTokens ${chat.maxInputTokens} for a capacity of ${last.capacity}`);
    // The engine is loaded now: counts come from the model's tokenizer (below the estimate).
    assert.ok((await chat.countTokens(LONGER)) < Math.ceil(LONGER.length / 3), "an exact count once the model is loaded");
  });

  it("two interleaved conversations both stay cached", async () => {
    const a = new Conversation(chat);
    const b = new Conversation(chat);
    for (let i = 0; i < 3; i++) {
      for (const [name, conversation] of [["Ann", a], ["Bob", b]] as const) {
        const answer = await conversation.ask(`I am ${name}. Question ${i + 1}: name a colour.`);
        if (i > 0) conversation.assertOnlyNewPrefilled(answer, conversation.answers[i - 1]);
      }
    }
    assert.notEqual(a.answers[2].served.sessionId, b.answers[2].served.sessionId);
  });

  it("a model unused for the idle time is let go (its engine freed), and the next request loads it again", async () => {
    const testing = await api();
    const conversation = new Conversation(chat);
    await conversation.ask("Name a planet.");
    assert.deepEqual(await testing.releaseIdleChatProvider(60_000), [], "used a moment ago: kept");
    assert.ok(testing.loadedEngines() > 0);
    await new Promise((r) => setTimeout(r, 20));
    const released = await testing.releaseIdleChatProvider(10);
    assert.equal(released.length, 1, `released: ${released.join(", ")}`);
    await waitFor("the engine freed", () => testing.loadedEngines() === 0, 60_000);
    const again = await conversation.ask("And another one?");
    assert.ok(again.text.trim().length > 0, "answered after the reload");
    assert.equal(again.served.cached, 0, "a fresh engine: the conversation is prefilled again");
  });

  describe("with one session per model", () => {
    before(async () => config().update("chatProvider.sessions", 1, vscode.ConfigurationTarget.Global));
    after(async () => config().update("chatProvider.sessions", undefined, vscode.ConfigurationTarget.Global));

    it("a conversation parked for another comes back from its KV snapshot", async () => {
      const a = new Conversation(chat);
      const b = new Conversation(chat);
      await a.ask("My name is Ada. Remember it.");
      const a2 = await a.ask("What is Python?");
      const b1 = await b.ask("Name a fruit.");
      assert.equal(b1.served.parked, a2.served.sessionId, "the first conversation was parked to serve the second");
      const a3 = await a.ask("What is my name?");
      assert.equal(a3.served.restored, "snapshot", "restored from its snapshot, not re-prefilled");
      assert.equal(a3.served.sessionId, a2.served.sessionId);
      assert.equal(a3.served.cached, a2.served.position - a3.served.rewound);
      const view = (await (await api()).chatProviderSessions()).find((v) => v.model.includes("SmolLM2"));
      assert.deepEqual(view?.live.map((l) => l.id), [a3.served.sessionId]);
      assert.ok(view?.parked.some((p) => p.id === b1.served.sessionId && p.snapshot), "the second conversation is parked with a snapshot");
    });
  });

  describe("tools, on a model whose template renders them (Qwen2.5-style fixture)", () => {
    let tools: vscode.LanguageModelChat;
    let configured: string | undefined;
    const getWeather: vscode.LanguageModelChatTool = {
      name: "get_weather",
      description: "Current weather of a city",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    };
    const call = (id: string, city: string) => vscode.LanguageModelChatMessage.Assistant([new vscode.LanguageModelToolCallPart(id, "get_weather", { city })]);
    const result = (id: string, text: string) => vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart(id, [new vscode.LanguageModelTextPart(text)])]);
    // Two worked examples, so the 135M test model follows the template's call syntax.
    const history = () => [
      vscode.LanguageModelChatMessage.User("What is the weather in Paris?"),
      call("c1", "Paris"),
      result("c1", "Sunny, 21 C"),
      vscode.LanguageModelChatMessage.Assistant("It is sunny in Paris, 21 C."),
      vscode.LanguageModelChatMessage.User("What is the weather in Berlin?"),
      call("c2", "Berlin"),
      result("c2", "Rain, 12 C"),
      vscode.LanguageModelChatMessage.Assistant("It is raining in Berlin, 12 C."),
    ];

    before(async () => {
      const path = process.env.STATEFUL_CHAT_TOOLS_MODEL;
      assert.ok(path, "run.ts provides the tool-template fixture model");
      configured = config().get<string>("modelPath");
      await config().update("modelPath", path, vscode.ConfigurationTarget.Global);
      tools = await modelNamed("qwen-tools");
    });
    after(async () => config().update("modelPath", configured, vscode.ConfigurationTarget.Global));

    it("a tool call part comes out, its result goes back in, and the answer continues", async () => {
      const messages = [...history(), vscode.LanguageModelChatMessage.User("What is the weather in Rome?")];
      const first = await send(tools, messages, { tools: [getWeather] });
      assert.equal(first.calls.length, 1, `one tool call (reply: ${JSON.stringify(first.text)})`);
      assert.equal(first.calls[0].name, "get_weather");
      assert.deepEqual(first.calls[0].input, { city: "Rome" });
      assert.equal(first.served.toolCalls, 1);
      messages.push(vscode.LanguageModelChatMessage.Assistant([first.calls[0]]));
      messages.push(result(first.calls[0].callId, "Cloudy, 18 C"));
      const second = await send(tools, messages, { tools: [getWeather] });
      assert.ok(second.text.trim().length > 0, "the model answers after the tool result");
      assert.equal(second.served.sessionId, first.served.sessionId);
      assert.ok(second.served.cached >= first.served.position - 8, "the tool round trip stayed cached");
    });

    it("a cancel in the middle leaves the session usable", async () => {
      const source = new vscode.CancellationTokenSource();
      const messages = [vscode.LanguageModelChatMessage.User("Write a long story about a robot who learns to paint, in many paragraphs.")];
      let chunks = 0;
      const cancelled = await send(tools, messages, { tools: [getWeather] }, source.token, () => {
        if (++chunks === 3) source.cancel();
      }).catch((error: unknown) => error);
      if (!(cancelled instanceof Error)) assert.equal((cancelled as Answer).served.stopReason, "cancelled");
      const again = await send(tools, [...history(), vscode.LanguageModelChatMessage.User("What is the weather in Rome?")], { tools: [getWeather] });
      assert.equal(again.calls.length, 1, "served normally after the cancel");
    });
  });

  describe("@stateful in the Chat view", () => {
    const participantRecords = async () => (await api()).chatProviderRequests().filter((r) => r.via === "participant");

    /** Submits a query in VS Code's own Chat view and waits for our participant's record of it. */
    async function ask(query: string): Promise<ServedRequest> {
      const before = (await participantRecords()).length;
      // The Chat view needs a model picked (without Copilot there is no default): ours.
      await vscode.commands.executeCommand("workbench.action.chat.open", { query, isPartialQuery: false, modelSelector: { vendor: VENDOR, id: chat.id } });
      for (let i = 0; i < 600; i++) {
        const records = await participantRecords();
        if (records.length > before) return records[before];
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`@stateful never answered: ${query}`);
    }

    it("answers in the Chat view; the follow-up reuses the cache; /reset starts over", async () => {
      await vscode.commands.executeCommand("workbench.action.chat.newChat").then(undefined, () => undefined);
      const first = await ask("@stateful What is a KV cache?");
      assert.ok(first.generated > 0);
      const second = await ask("@stateful Say it in one sentence.");
      assert.equal(second.sessionId, first.sessionId);
      assert.ok(second.rewound <= 8, `rewound ${second.rewound}`);
      assert.equal(second.cached, first.position - second.rewound, "the follow-up prefilled only its new message");
      const testing = await api();
      const resets = testing.chatParticipantResets();
      await vscode.commands.executeCommand("workbench.action.chat.open", { query: "@stateful /reset", isPartialQuery: false, modelSelector: { vendor: VENDOR, id: chat.id } });
      await waitFor("the /reset", () => testing.chatParticipantResets() > resets);
      const fresh = await ask("@stateful What is a KV cache?");
      assert.equal(fresh.requestTokens, first.requestTokens, "after /reset the earlier turns are not sent");
    });
  });
});
