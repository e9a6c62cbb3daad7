import { stat } from "node:fs/promises";
import { availableParallelism, cpus } from "node:os";
import { basename } from "node:path";
import type { Engine, EngineInfo, EnginePlacement, KvState } from "../../core/engine";
import { DEFAULT_RESERVED_STATES, engineCapacity, MAX_BATCH, requestedContextSize, type GpuChoice, type GpuLayersChoice } from "../../core/engine-options";
import { DeviceMemoryError, DisposedError, EngineFailedError, ModelInvalidError, StatefulChatError } from "../../core/errors";
import { contextRefusal } from "./device-memory";
import { gpuApiName, placementSummary, type GpuDecision, type GpuType } from "./gpu-choice";
import { resolveGpu } from "./gpu-resolve";
import { assertLooksLikeGguf } from "./gguf-file";
import { LlamaKvState } from "./llama-state";
import { LlamaTokenizer } from "./llama-tokenizer";
import { hasNativeReplyLoop } from "./native-reply-loop";
import { batchThreadCount, batchThreadsSettable } from "./batch-threads";
import { calibratedThreads } from "./thread-calibration";
import { describeLlamaBuild, getLlamaRuntime, takeRecentLlamaErrors, type LlamaModel } from "./node-llama-cpp";
import { flashAttentionFor, flashAttentionNote } from "./flash-attention";

export interface LlamaEngineOptions {
  readonly modelPath: string;
  /** Tokens per session; its default and the capacity that follows from it: core/engine-options.ts (engineCapacity). */
  readonly contextSize?: number;
  /**
   * CPU threads. Default: the fastest count measured for this model, binary and machine
   * (thread-calibration.ts), remembered in `threadCalibrationFile` when given.
   */
  readonly threads?: number;
  readonly threadCalibrationFile?: string;
  /** Where the layers run (GpuChoice, core/engine-options.ts; decided in gpu-choice.ts). Defaults to `off`: the settings and the CLI pass `auto`. */
  readonly gpu?: GpuChoice;
  /** Layers on the GPU: `auto` (default) as many as fit with room for `reservedStates` KV caches, or a number. */
  readonly gpuLayers?: GpuLayersChoice;
  /** KV caches (chats open at once) that `auto` layers leave device memory for. Defaults to DEFAULT_RESERVED_STATES. */
  readonly reservedStates?: number;
}

export class LlamaEngine implements Engine {
  private disposed = false;
  private readonly states = new Set<KvState>();

  private constructor(
    private readonly model: LlamaModel,
    readonly info: EngineInfo,
    readonly tokenizer: LlamaTokenizer,
    readonly chatTemplate: string,
    private readonly threads: number,
    /** Threads for prompt and verify batches (batch-threads.ts); `threads` where the binary cannot set them apart. */
    private readonly batchThreads: number,
    readonly replyLoop: boolean,
    /** Set when the GPU asked for (or found) is not used, saying why. */
    readonly notice: string | undefined,
  ) {}

  static async load(options: LlamaEngineOptions): Promise<LlamaEngine> {
    await assertLooksLikeGguf(options.modelPath);
    const requested = requestedContextSize(options.contextSize);
    const gpu: GpuDecision = await resolveGpu({
      choice: options.gpu ?? "off",
      layers: options.gpuLayers ?? "auto",
      modelPath: options.modelPath,
      // The training context is not known before loading: the estimate takes the size asked for.
      contextSize: engineCapacity(requested),
      batchSize: Math.min(MAX_BATCH, requested),
      reservedStates: options.reservedStates ?? DEFAULT_RESERVED_STATES,
    });
    const { module, llama } = await getLlamaRuntime(gpu.binary);
    const build = describeLlamaBuild(llama);
    await module.readGgufFileInfo(options.modelPath).catch((error: unknown) => {
      throw new ModelInvalidError(options.modelPath, `unreadable GGUF metadata: ${String(error)}`, { cause: error });
    });
    let model: LlamaModel;
    try {
      model = await llama.loadModel({ modelPath: options.modelPath, gpuLayers: gpu.binary === "cpu" ? 0 : gpu.gpuLayers });
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
    const totalLayers = model.fileInsights.totalLayers;
    const offloaded = gpu.binary === "cpu" ? 0 : model.gpuLayers;
    let threads = options.threads;
    let threadNote = "";
    if (threads === undefined && offloaded > 0) {
      // Not calibrated on a GPU: the decode speed there is the device's, and measuring every
      // count decodes dozens of tokens (minutes on a slow device). All layers offloaded, one
      // thread feeds it; with layers left on the CPU, every core computes them.
      threads = offloaded >= totalLayers ? 1 : availableParallelism();
    }
    if (threads === undefined) {
      const file = await stat(options.modelPath);
      const identity = `${options.modelPath}|${file.size}|${file.mtimeMs}|${build}`;
      const calibration = await calibratedThreads(model, identity, options.threadCalibrationFile).catch(() => undefined);
      threads = calibration?.threads ?? 1;
      threadNote = calibration
        ? ` (fastest measured: ${Object.entries(calibration.tokensPerSecond).map(([t, speed]) => `${t}→${speed}`).join(", ")} tok/s)`
        : "";
    }
    const batchThreads = batchThreadsSettable(llama)
      ? batchThreadCount({ decode: threads, decodeSet: options.threads !== undefined, cores: availableParallelism(), gpuLayers: offloaded === 0 ? "none" : offloaded >= totalLayers ? "all" : "some" })
      : threads;
    const threadSummary = batchThreads === threads ? `${threads} threads` : `${threads} threads (${batchThreads} for prompt batches)`;
    const capacity = engineCapacity(requested, model.trainContextSize);
    const compute = offloaded > 0 && gpu.binary !== "cpu" ? gpu.binary : "cpu";
    const device = compute === "cpu" || gpu.binary === "cpu" ? (cpus()[0]?.model ?? "CPU") : gpu.device;
    const placement: EnginePlacement = {
      compute,
      device,
      layersOffloaded: offloaded,
      layers: totalLayers,
      threads,
      summary: placementSummary(compute, device, offloaded, totalLayers, threads),
    };
    const why = gpu.binary === "cpu" && gpu.reason !== "GPU off" ? ` (${gpu.reason})` : "";
    const info: EngineInfo = {
      backend: "llamacpp",
      modelPath: options.modelPath,
      modelName: basename(options.modelPath),
      capacity,
      details:
        compute === "cpu"
          ? `llama.cpp CPU (${build})${why}, ${threadSummary}${threadNote}, context ${capacity}`
          : `llama.cpp ${placement.summary} (${build}${flashAttentionNote(flashAttentionFor(placement))}), ${threadSummary}, context ${capacity}`,
      placement,
    };
    const notice = gpu.binary === "cpu" ? gpu.notice : undefined;
    return new LlamaEngine(model, info, new LlamaTokenizer(model), template, threads, batchThreads, hasNativeReplyLoop(llama), notice);
  }

  /** Device memory one more state needs and what is free; undefined on the CPU (RAM is node-llama-cpp's own check). */
  private async deviceRefusal(batchSize: number): Promise<string | undefined> {
    const placement = this.info.placement;
    if (!placement || placement.layersOffloaded === 0) return undefined;
    const llama = this.model.llama;
    const [needed, device] = await Promise.all([
      this.model.fileInsights
        .estimateContextResourceRequirementsV2({ contextSize: this.info.capacity, modelGpuLayers: placement.layersOffloaded, batchSize, sequences: 1, flashAttention: flashAttentionFor(placement) !== false })
        .then((r) => r.gpuVram),
      llama.getVramState(),
    ]);
    return contextRefusal({
      needed,
      device,
      heldByEngine: this.model.memoryUsage.vram + this.states.size * needed,
      padding: llama.vramPaddingSize,
      openStates: this.states.size,
      contextSize: this.info.capacity,
      deviceName: placement.compute === "cpu" ? "the CPU" : `${gpuApiName(placement.compute as GpuType)} ${placement.device}`,
    });
  }

  async createState(): Promise<KvState> {
    if (this.disposed) throw new DisposedError("Engine");
    const batchSize = Math.min(MAX_BATCH, this.info.capacity);
    const refusal = await this.deviceRefusal(batchSize);
    if (refusal) throw new DeviceMemoryError(refusal);
    let state: LlamaKvState;
    try {
      state = await LlamaKvState.create(
        this.model,
        { contextSize: this.info.capacity, threads: this.threads, batchThreads: this.batchThreads, batchSize, flashAttention: flashAttentionFor(this.info.placement) },
        () => this.states.delete(state),
      );
    } catch (error) {
      // node-llama-cpp's own memory check (its estimate against the device's and the RAM's free memory).
      if (error instanceof Error && error.constructor.name === "InsufficientMemoryError") throw new DeviceMemoryError(`${error.message} (${this.states.size} chats open). Close a chat or lower statefulChat.contextSize.`);
      throw error;
    }
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
