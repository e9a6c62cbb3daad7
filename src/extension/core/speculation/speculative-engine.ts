// An Engine whose states decode speculatively (speculative-state.ts), wrapping any engine
// whose states can verify a batch. Chosen by the backend picker from the `speculative`
// setting; the core and the shell see an ordinary Engine with a reply loop.

import type { Engine, EngineInfo, KvState } from "../engine";
import { DisposedError } from "../errors";
import { DraftModelDrafter } from "./draft-model-drafter";
import { DraftPolicy } from "./draft-policy";
import type { SpeculativeMode } from "./modes";
import { SpeculativeKvState } from "./speculative-state";
import { withVerify } from "./one-token-verify";
import { measureVerifyCost, type CalibrationStore, type VerifyCost } from "./verify-cost";

const MAX_DRAFT = 16;

export interface SpeculativeEngineOptions {
  readonly mode: Exclude<SpeculativeMode, "off">;
  /** A loaded draft model with the target's vocabulary (checked by the caller), for `draft` and `auto`. */
  readonly draftEngine?: Engine;
  /** Where the measured verify cost is remembered; measured on first use otherwise. */
  readonly calibration?: CalibrationStore;
  /** Known verify cost (tests); skips measuring. */
  readonly verifyCost?: VerifyCost;
}

/** Prompt used to measure verify cost: ordinary code-like text in the model's own tokens. */
const PROBE_TEXT = "function add(a, b) {\n  return a + b;\n}\n\nconst total = add(1, 2);\nconsole.log(`total: ${total}`);\n";

export class SpeculativeEngine implements Engine {
  readonly replyLoop = true;
  private cost: Promise<VerifyCost> | undefined;
  private disposed = false;

  constructor(
    private readonly target: Engine,
    private readonly options: SpeculativeEngineOptions,
  ) {
    this.info = { ...target.info, details: `${target.info.details}, speculative ${this.describe()}` };
  }

  readonly info: EngineInfo;

  get tokenizer() {
    return this.target.tokenizer;
  }

  get chatTemplate() {
    return this.target.chatTemplate;
  }

  async createState(): Promise<KvState> {
    if (this.disposed) throw new DisposedError("Engine");
    const inner = await this.target.createState();
    // This engine reports a reply loop, so every state it makes must have one: a backend that
    // cannot verify a batch gets one token at a time (correct; the measured cost then keeps
    // `auto` from drafting).
    const verifiable = withVerify(inner);
    const cost = await this.verifyCost(verifiable);
    const policy = new DraftPolicy(cost, { maxDraft: MAX_DRAFT, gate: this.options.mode === "auto" });
    const draftModel = this.options.draftEngine && this.options.mode !== "lookup" ? new DraftModelDrafter(await this.options.draftEngine.createState()) : undefined;
    return new SpeculativeKvState(verifiable, { lookup: this.options.mode !== "draft", draftModel, policy, tokenizer: this.target.tokenizer });
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.target.dispose();
    await this.options.draftEngine?.dispose();
  }

  private describe(): string {
    const draft = this.options.draftEngine ? `draft model ${this.options.draftEngine.info.modelName}` : undefined;
    if (this.options.mode === "lookup") return "(prompt lookup)";
    if (this.options.mode === "draft") return `(${draft})`;
    return draft ? `(auto: prompt lookup, then ${draft})` : "(auto: prompt lookup)";
  }

  /** Measured once per engine (first state), on a scratch state, unless the store knows it. */
  private verifyCost(sample: KvState): Promise<VerifyCost> {
    if (this.options.verifyCost) return Promise.resolve(this.options.verifyCost);
    this.cost ??= (async () => {
      // "every-size": measured at every draft length (verify-cost.ts); a curve stored before from a few sizes is measured again.
      const key = `${this.target.info.modelPath}|${this.target.info.details}|every-size`;
      const stored = await this.options.calibration?.read(key).catch(() => undefined);
      if (stored) return stored;
      const probe = this.target.tokenizer.encode(PROBE_TEXT.repeat(2), { specials: false }).slice(0, 48);
      const scratch = await this.target.createState().catch(() => undefined);
      const cost = await measureVerifyCost(scratch ?? sample, probe, MAX_DRAFT).finally(() => scratch?.dispose());
      await this.options.calibration?.write(key, cost).catch(() => undefined);
      return cost;
    })();
    return this.cost;
  }
}
