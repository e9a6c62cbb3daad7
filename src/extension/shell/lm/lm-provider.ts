// The Language Model Chat Provider (vendor `stateful-chat`): our models in VS Code's Chat
// model picker and for any extension through vscode.lm. Requests are stateless (the whole
// conversation each time); each is served from the cached session that already holds most
// of it, so only the new tokens are prefilled. Its context size is its own (provider-context.ts),
// not the panels'; a long prefill shows its progress (prefill-progress.ts).

import * as vscode from "vscode";
import { CancelledError, CapacityError, toStatefulChatError } from "../../core/errors";
import { readSettings } from "../settings/settings";
import { catalogModels, chatInformationOf, type CatalogModel } from "./lm-catalog";
import { messageText, requestMessagesOf, toolSpecsOf } from "./lm-messages";
import type { ModelPools } from "./lm-pools";
import { PrefillProgressNotice } from "./prefill-progress";
import { capacityRefusal, type ProviderContext } from "./provider-context";
import { providerContextOf } from "./provider-settings";
import { servedRecord, serveRequest } from "./serve-request";

export const LM_VENDOR = "stateful-chat";

/** Characters per token for a count asked before the model's tokenizer is loaded (a safe over-count). */
const ESTIMATED_CHARS_PER_TOKEN = 3;

export class StatefulChatModelProvider implements vscode.LanguageModelChatProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this.changed.event;
  private known = new Map<string, CatalogModel>();
  /** Context plans already in the log (each is made once per model and settings). */
  private readonly loggedPlans = new WeakSet<ProviderContext>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly pools: ModelPools,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** The model list may have changed (settings, a download). */
  refresh(): void {
    this.changed.fire();
  }

  async provideLanguageModelChatInformation(): Promise<vscode.LanguageModelChatInformation[]> {
    const settings = readSettings();
    const models = await catalogModels(this.context, settings, this.log);
    this.known = new Map(models.map((m) => [m.id, m]));
    return models.map((m) => {
      const context = providerContextOf(m, settings);
      const info = chatInformationOf(m, settings, context);
      if (!this.loggedPlans.has(context)) {
        this.loggedPlans.add(context);
        this.log.info(
          `Chat provider: ${m.name}: context ${context.capacity.toLocaleString("en-US")} tokens (${context.why}); VS Code is told ${info.maxInputTokens.toLocaleString("en-US")} in, ${info.maxOutputTokens.toLocaleString("en-US")} out`,
        );
      }
      return info;
    });
  }

  async provideLanguageModelChatResponse(
    info: vscode.LanguageModelChatInformation,
    messages: readonly vscode.LanguageModelChatRequestMessage[],
    options: vscode.ProvideLanguageModelChatResponseOptions,
    progress: vscode.Progress<vscode.LanguageModelResponsePart>,
    token: vscode.CancellationToken,
  ): Promise<void> {
    await this.pools.use(await this.modelOf(info), async (target) => {
      const converted = requestMessagesOf(messages);
      if (converted.skippedParts > 0) this.log.info(`Chat provider: ${converted.skippedParts} message parts (images or data) are not supported and were left out`);
      const settings = readSettings();
      const controller = new AbortController();
      const cancel = token.onCancellationRequested(() => controller.abort());
      const notice = new PrefillProgressNotice(`Stateful Chat: ${info.name}`, () => controller.abort());
      try {
        const served = await serveRequest(
          target,
          converted.messages,
          toolSpecsOf(options.tools),
          {
            maxTokens: Math.min(info.maxOutputTokens, numberOption(options.modelOptions, "maxTokens", info.maxOutputTokens)),
            sampling: { temperature: numberOption(options.modelOptions, "temperature", settings.turn.sampling.temperature) },
            onPrefillProgress: notice.onProgress,
          },
          {
            text: (text) => progress.report(new vscode.LanguageModelTextPart(text)),
            toolCall: (call) => progress.report(new vscode.LanguageModelToolCallPart(call.id, call.name, call.arguments)),
          },
          controller.signal,
        );
        this.pools.record(servedRecord(served, target.modelName, "lm"));
      } catch (error) {
        if (error instanceof CancelledError) {
          // Stopped from our notification, not by VS Code: the Chat view says why its answer is empty.
          if (notice.cancelledAt && !token.isCancellationRequested) throw new Error(notice.cancelledMessage(), { cause: error });
          return;
        }
        const failure = toStatefulChatError(error);
        this.log.error(`Chat provider: ${failure.code}: ${failure.message}`);
        if (failure instanceof CapacityError) {
          // VS Code's Agent mode alone (instructions and tool schemas) can be larger than a small model's context.
          const context = { ...providerContextOf(target.model, settings), capacity: failure.capacity };
          throw new Error(capacityRefusal(failure.requested, info.name, context, target.model.summary?.contextLength), { cause: error });
        }
        throw new Error(failure.message, { cause: error });
      } finally {
        notice.dispose();
        cancel.dispose();
      }
    });
  }

  async provideTokenCount(info: vscode.LanguageModelChatInformation, text: string | vscode.LanguageModelChatRequestMessage): Promise<number> {
    const plain = typeof text === "string" ? text : messageText(text);
    const tokenizer = this.pools.tokenizerOrLoad(await this.modelOf(info));
    // While the engine loads (a 1.5B at a 32k context takes half a minute here), an estimate
    // now: VS Code's Chat counts every part of its prompt before sending, and Agent mode gave up
    // on a first request whose counts waited for the load ("Please try again."). Three
    // characters a token is above what code and English take, so the prompt it builds still fits.
    if (!tokenizer) return Math.ceil(plain.length / ESTIMATED_CHARS_PER_TOKEN);
    return tokenizer.encode(plain, { specials: false }).length;
  }

  private async modelOf(info: vscode.LanguageModelChatInformation): Promise<CatalogModel> {
    if (!this.known.has(info.id)) await this.provideLanguageModelChatInformation();
    const model = this.known.get(info.id);
    if (!model) throw new Error(`Stateful Chat no longer offers the model ${info.name}; pick another one.`);
    return model;
  }
}

/** A caller's model option (e.g. `temperature`) when it is a usable number, else the default. */
function numberOption(options: { readonly [name: string]: unknown } | undefined, name: string, fallback: number): number {
  const value = options?.[name];
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : fallback;
}
