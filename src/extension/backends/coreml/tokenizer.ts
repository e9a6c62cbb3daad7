// The Tokenizer of the core contract, from a Hugging Face tokenizer.json, through
// @huggingface/tokenizers (pure JS; ids checked against Python `tokenizers` in
// test/native/tokenizer-parity.test.ts).
import { Tokenizer as HfTokenizer } from "@huggingface/tokenizers";
import type { Tokenizer } from "../../core/engine";

interface TokenizerJson {
  added_tokens?: Array<{ id: number; content: string; special?: boolean }>;
  [key: string]: unknown;
}

export interface TokenizerConfig {
  readonly chat_template?: string;
  readonly eos_token?: string | { content: string };
  readonly bos_token?: string | { content: string } | null;
  readonly add_bos_token?: boolean;
}

function tokenText(token: string | { content: string } | null | undefined): string | undefined {
  if (token == null) return undefined;
  return typeof token === "string" ? token : token.content;
}

/** End-of-turn spellings of common chat templates, besides the configured EOS. */
const END_OF_TURN_TEXTS = ["<|im_end|>", "<|eot_id|>", "<|end|>", "<end_of_turn>", "<|endoftext|>"];

export class HuggingFaceTokenizer implements Tokenizer {
  readonly bos?: { readonly id: number; readonly text: string };
  readonly eosText?: string;
  private readonly withSpecials: HfTokenizer;
  // Same vocabulary without special added tokens: "<|im_end|>" typed by a user stays text.
  private readonly plainText: HfTokenizer;
  private readonly endTokens: ReadonlySet<number>;

  constructor(json: TokenizerJson, config: TokenizerConfig) {
    this.withSpecials = new HfTokenizer(json, config);
    const plain: TokenizerJson = {
      ...json,
      added_tokens: (json.added_tokens ?? []).filter((token) => !token.special),
    };
    this.plainText = new HfTokenizer(plain, config);
    this.eosText = tokenText(config.eos_token);
    const ends = new Set<number>();
    for (const text of [this.eosText, ...END_OF_TURN_TEXTS]) {
      const id = text === undefined ? undefined : this.withSpecials.token_to_id(text);
      if (id !== undefined) ends.add(id);
    }
    this.endTokens = ends;
    const bosText = tokenText(config.bos_token);
    const bosId = bosText === undefined ? undefined : this.withSpecials.token_to_id(bosText);
    // Only when the model asks for it and the template does not write it itself.
    if (config.add_bos_token && bosText !== undefined && bosId !== undefined && !config.chat_template?.includes("bos_token")) {
      this.bos = { id: bosId, text: bosText };
    }
  }

  encode(text: string, options: { readonly specials: boolean }): number[] {
    const tokenizer = options.specials ? this.withSpecials : this.plainText;
    return tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  decode(tokens: readonly number[]): string {
    return this.withSpecials.decode([...tokens], { skip_special_tokens: false, clean_up_tokenization_spaces: false });
  }

  isEndOfGeneration(token: number): boolean {
    return this.endTokens.has(token);
  }
}
