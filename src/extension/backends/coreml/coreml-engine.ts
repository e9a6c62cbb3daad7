// Engine over one native model: one MLModel shared by every panel's state.
import type { Engine, EngineInfo, KvState, Tokenizer } from "../../core/engine";
import { DisposedError } from "../../core/errors";
import type { NativeModel } from "./addon";
import { CoreMLState } from "./coreml-state";
import { fromNativeError } from "./native-errors";

export interface CoreMLEngineParts {
  readonly model: NativeModel;
  readonly tokenizer: Tokenizer;
  readonly chatTemplate: string;
  readonly modelPath: string;
  readonly modelName: string;
  readonly details: string;
  /** Tokens per native prediction during prefill (cancellation granularity is the core's). */
  readonly prefillChunk?: number;
}

export class CoreMLEngine implements Engine {
  readonly info: EngineInfo;
  readonly tokenizer: Tokenizer;
  readonly chatTemplate: string;
  private readonly states = new Set<CoreMLState>();
  private disposed = false;

  constructor(private readonly parts: CoreMLEngineParts) {
    const native = parts.model.info();
    this.tokenizer = parts.tokenizer;
    this.chatTemplate = parts.chatTemplate;
    this.info = {
      backend: "coreml",
      modelPath: parts.modelPath,
      modelName: parts.modelName,
      capacity: native.capacity,
      details: [parts.details, native.details].filter(Boolean).join(", "),
    };
  }

  async createState(): Promise<KvState> {
    if (this.disposed) throw new DisposedError("Core ML engine");
    try {
      const session = this.parts.model.createSession({ prefillChunk: this.parts.prefillChunk });
      const state = new CoreMLState(session, (gone) => this.states.delete(gone));
      this.states.add(state);
      return state;
    } catch (error) {
      throw fromNativeError(error, "Core ML engine");
    }
  }

  /** Cascades: every state first, then the model. Idempotent. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await Promise.all([...this.states].map((state) => state.dispose()));
    this.parts.model.dispose();
  }
}
