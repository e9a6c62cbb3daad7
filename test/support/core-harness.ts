// Builds the core on a (possibly instrumented) engine without Conversation, so tests can
// reach the session state directly.

import { ChatTemplate } from "../../src/extension/core/chat-template";
import { DEFAULT_TURN_OPTIONS } from "../../src/extension/core/conversation";
import type { Engine, KvState } from "../../src/extension/core/engine";
import { Session } from "../../src/extension/core/session";
import { TurnRunner, type TurnOptions } from "../../src/extension/core/turn-runner";

export interface Harness {
  readonly state: KvState;
  readonly session: Session;
  readonly runner: TurnRunner;
}

export async function createHarness(engine: Engine, options: Partial<TurnOptions> = {}, chunk = 128): Promise<Harness> {
  const state = await engine.createState();
  const session = new Session(state, engine.tokenizer, chunk);
  const template = new ChatTemplate(engine.chatTemplate, {
    bosToken: engine.tokenizer.bos?.text,
    eosToken: engine.tokenizer.eosText,
  });
  const runner = new TurnRunner(engine, template, session, { ...DEFAULT_TURN_OPTIONS, ...options });
  return { state, session, runner };
}
