import type { Tokenizer } from "../../core/engine";
import type { LlamaModel, Token } from "./node-llama-cpp";

/** The model's own tokenizer, as llama.cpp reads it from the GGUF. */
export class LlamaTokenizer implements Tokenizer {
  readonly bos?: { readonly id: number; readonly text: string };
  readonly eosText?: string;

  constructor(private readonly model: LlamaModel) {
    const bosId = model.tokens.bos;
    const addBos = model.fileInfo.metadata?.tokenizer?.ggml?.add_bos_token === true;
    if (addBos && bosId !== null && model.tokens.bosString) {
      this.bos = { id: bosId, text: model.tokens.bosString };
    }
    this.eosText = model.tokens.eosString ?? undefined;
  }

  encode(text: string, options: { readonly specials: boolean }): number[] {
    if (text.length === 0) return [];
    return [...this.model.tokenize(text, options.specials)];
  }

  decode(tokens: readonly number[]): string {
    return this.model.detokenize(tokens as Token[], true);
  }

  isEndOfGeneration(token: number): boolean {
    return this.model.isEogToken(token as Token);
  }
}
