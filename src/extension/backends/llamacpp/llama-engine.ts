import { stat } from "node:fs/promises";
import { basename } from "node:path";
import type { Engine, EngineInfo, KvState } from "../../core/engine";
import { DisposedError, EngineFailedError, ModelInvalidError, StatefulChatError } from "../../core/errors";
import { assertLooksLikeGguf } from "./gguf-file";
import { LlamaKvState } from "./llama-state";
import { LlamaTokenizer } from "./llama-tokenizer";
import { hasNativeReplyLoop } from "./native-reply-loop";
import { calibratedThreads } from "./thread-calibration";
import { describeLlamaBuild, getLlamaRuntime, takeRecentLlamaErrors, type LlamaModel } from "./node-llama-cpp";

export interface LlamaEngineOptions {
  readonly modelPath: string;
  /** Tokens per session. Defaults to 4096, capped at the model's training context. llama.cpp rounds up to a multiple of 256. */
  readonly contextSize?: number;
  /**
   * CPU threads. Default: the fastest count measured for this model, binary and machine
   * (thread-calibration.ts), remembered in `threadCalibrationFile` when given.
   */
  readonly threads?: number;
  readonly threadCalibrationFile?: string;
}

const DEFAULT_CONTEXT = 4096;

export class LlamaEngine implements Engine {
  private disposed = false;
  private readonly states = new Set<KvState>();

  private constructor(
    private readonly model: LlamaModel,
    readonly info: EngineInfo,
    readonly tokenizer: LlamaTokenizer,
    readonly chatTemplate: string,
    private readonly threads: number,
    readonly replyLoop: boolean,
  ) {}

  static async load(options: LlamaEngineOptions): Promise<LlamaEngine> {
    await assertLooksLikeGguf(options.modelPath);
    const { module, llama } = await getLlamaRuntime();
    const build = describeLlamaBuild(llama);
    await module.readGgufFileInfo(options.modelPath).catch((error: unknown) => {
      throw new ModelInvalidError(options.modelPath, `unreadable GGUF metadata: ${String(error)}`, { cause: error });
    });
    let model: LlamaModel;
    try {
      model = await llama.loadModel({ modelPath: options.modelPath, gpuLayers: 0 });
    } catch (error) {
      if (error instanceof StatefulChatError) throw error;
      const detail = takeRecentLlamaErrors().find((line) => line.includes("error loading model")) ?? String(error);
      throw new ModelInvalidError(options.modelPath, `llama.cpp could not load it: ${detail}`, { cause: error });
    }
    const template = model.fileInfo.metadata?.tokenizer?.chat_template;
    if (typeof template !== "string" || template.length === 0) {
      await model.dispose();
      throw new ModelInvalidError(options.modelPath, "it has no chat template (tokenizer.chat_template)");
    }
    const trainContext = model.trainContextSize;
    const requested = options.contextSize ?? DEFAULT_CONTEXT;
    const contextSize = Math.min(requested, trainContext);
    let threads = options.threads;
    let threadNote = "";
    if (threads === undefined) {
      const file = await stat(options.modelPath);
      const identity = `${options.modelPath}|${file.size}|${file.mtimeMs}|${build}`;
      const calibration = await calibratedThreads(model, identity, options.threadCalibrationFile).catch(() => undefined);
      threads = calibration?.threads ?? 1;
      threadNote = calibration
        ? ` (fastest measured: ${Object.entries(calibration.tokensPerSecond).map(([t, speed]) => `${t}→${speed}`).join(", ")} tok/s)`
        : "";
    }
    const capacity = Math.ceil(contextSize / 256) * 256;
    const info: EngineInfo = {
      backend: "llamacpp",
      modelPath: options.modelPath,
      modelName: basename(options.modelPath),
      capacity,
      details: `llama.cpp CPU (${build}), ${threads} threads${threadNote}, context ${capacity}`,
    };
    return new LlamaEngine(model, info, new LlamaTokenizer(model), template, threads, hasNativeReplyLoop(llama));
  }

  async createState(): Promise<KvState> {
    if (this.disposed) throw new DisposedError("Engine");
    const state: LlamaKvState = await LlamaKvState.create(
      this.model,
      { contextSize: this.info.capacity, threads: this.threads, batchSize: Math.min(512, this.info.capacity) },
      () => this.states.delete(state),
    );
    if (this.replyLoop !== (state.generateReply !== undefined)) {
      await state.dispose();
      throw new EngineFailedError("llama.cpp: the addon's reply loop is present on its class but not on a context");
    }
    this.states.add(state);
    return state;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    for (const state of [...this.states]) await state.dispose();
    await this.model.dispose();
  }
}
