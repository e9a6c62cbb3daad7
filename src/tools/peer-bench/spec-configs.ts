// The speculative-decoding configurations a bench run compares (`--spec-configs`): ours with
// speculation off / lookup / draft / auto, llama-server at its default (none), with each of its
// n-gram modes (`--spec-type`), and with a draft model (`-md`). Configurations run alternated,
// one repeat of all of them after another (ABC ABC …), so drift on a shared machine spreads
// over every configuration instead of landing on one.

import { SPECULATIVE_MODES, type SpeculativeMode } from "../../extension/core/speculation/modes";

export const OUR_SPEC_MODES = SPECULATIVE_MODES;
export type OurSpecMode = SpeculativeMode;

/** llama-server 11434's `--spec-type` n-gram modes (common/speculative.cpp). */
export const PEER_NGRAM_MODES = ["ngram-simple", "ngram-map-k", "ngram-map-k4v", "ngram-mod", "ngram-cache"] as const;
export const PEER_SPEC_MODES = ["default", ...PEER_NGRAM_MODES, "draft"] as const;
export type PeerSpecMode = (typeof PEER_SPEC_MODES)[number];

/**
 * llama-server's flash attention: its default is `auto` (on, on this CPU), and `off` is faster
 * for it at long contexts on some machines, so a peer configuration may say `/fa-off`
 * (`peer:ngram-simple/fa-off`) to measure the peer at its best either way.
 */
export const PEER_FLASH_ATTN_OFF = "fa-off";

export type SpecConfig =
  | { readonly side: "ours"; readonly mode: OurSpecMode }
  | { readonly side: "peer"; readonly mode: PeerSpecMode; readonly flashAttnOff?: true };

export class SpecConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SpecConfigError";
  }
}

export const specLabel = (config: SpecConfig): string => `${config.side}:${config.mode}${config.side === "peer" && config.flashAttnOff ? `/${PEER_FLASH_ATTN_OFF}` : ""}`;

const usesDraft = (config: SpecConfig) => config.mode === "draft";

/** Without `--spec-configs`: off and lookup for us, default and ngram-simple for the peer, and the draft model on both sides when there is one. */
export function defaultSpecConfigs(hasDraft: boolean): SpecConfig[] {
  const all: SpecConfig[] = [
    { side: "ours", mode: "off" },
    { side: "ours", mode: "lookup" },
    { side: "ours", mode: "draft" },
    { side: "peer", mode: "default" },
    { side: "peer", mode: "ngram-simple" },
    { side: "peer", mode: "draft" },
  ];
  return all.filter((c) => hasDraft || !usesDraft(c));
}

/** Every configuration (`--spec-configs all`). */
export function allSpecConfigs(hasDraft: boolean): SpecConfig[] {
  const all: SpecConfig[] = [
    ...OUR_SPEC_MODES.map((mode) => ({ side: "ours" as const, mode })),
    ...PEER_SPEC_MODES.map((mode) => ({ side: "peer" as const, mode })),
  ];
  return all.filter((c) => hasDraft || !usesDraft(c));
}

/** `ours:off,ours:lookup,peer:default,peer:ngram-simple,…`, `all`, or undefined for the default set. */
export function parseSpecConfigs(value: string | undefined, hasDraft: boolean): SpecConfig[] {
  if (value === undefined) return defaultSpecConfigs(hasDraft);
  if (value.trim() === "all") return allSpecConfigs(hasDraft);
  const configs: SpecConfig[] = [];
  for (const item of value.split(",").map((s) => s.trim()).filter(Boolean)) {
    const [side, modeAndVariant, extra] = item.split(":");
    const [mode, variant, more] = (modeAndVariant ?? "").split("/");
    const faOff = variant === PEER_FLASH_ATTN_OFF && more === undefined;
    let config: SpecConfig;
    if (extra === undefined && variant === undefined && side === "ours" && (OUR_SPEC_MODES as readonly string[]).includes(mode!)) config = { side, mode: mode as OurSpecMode };
    else if (extra === undefined && (variant === undefined || faOff) && side === "peer" && (PEER_SPEC_MODES as readonly string[]).includes(mode!)) {
      config = faOff ? { side, mode: mode as PeerSpecMode, flashAttnOff: true } : { side, mode: mode as PeerSpecMode };
    }
    else {
      throw new SpecConfigError(
        `--spec-configs: "${item}" is not one of ${OUR_SPEC_MODES.map((m) => `ours:${m}`).join(", ")}, ${PEER_SPEC_MODES.map((m) => `peer:${m}`).join(", ")} (a peer one may end in /${PEER_FLASH_ATTN_OFF})`,
      );
    }
    if (usesDraft(config) && !hasDraft) throw new SpecConfigError(`--spec-configs: ${item} needs a draft model (--draft-model PATH or --models qwen)`);
    if (!configs.some((c) => specLabel(c) === specLabel(config))) configs.push(config);
  }
  if (configs.length === 0) throw new SpecConfigError("--spec-configs: no configuration given");
  return configs;
}

/** llama-server arguments for a peer mode (none for its default), and flash attention off when asked (after the launcher's `--flash-attn auto`, so it wins). */
export function peerSpecArgs(mode: PeerSpecMode, draft: { readonly path?: string; readonly maxTokens: number }, flashAttnOff = false): string[] {
  return [...speculationArgs(mode, draft), ...(flashAttnOff ? ["--flash-attn", "off"] : [])];
}

function speculationArgs(mode: PeerSpecMode, draft: { readonly path?: string; readonly maxTokens: number }): string[] {
  if (mode === "default") return [];
  if (mode === "draft") {
    if (!draft.path) throw new SpecConfigError("peer:draft needs a draft model");
    return ["--spec-draft-model", draft.path, "--spec-type", "draft-simple", "--spec-draft-n-max", String(draft.maxTokens)];
  }
  return ["--spec-type", mode];
}

/** What our engine request gets for one of our modes. */
export function ourSpecRequest(mode: OurSpecMode, draftModelPath: string | undefined): { speculative: OurSpecMode; draftModelPath?: string } {
  if (mode === "draft" && !draftModelPath) throw new SpecConfigError("ours:draft needs a draft model");
  // auto may use the draft model too; off and lookup never load it.
  return mode === "draft" || mode === "auto" ? { speculative: mode, ...(draftModelPath ? { draftModelPath } : {}) } : { speculative: mode };
}

/** `repeats` rounds of every item in order: A B C A B C …, each with its round. */
export function alternate<T>(items: readonly T[], repeats: number): Array<{ readonly item: T; readonly repeat: number }> {
  const order: Array<{ item: T; repeat: number }> = [];
  for (let repeat = 1; repeat <= repeats; repeat++) for (const item of items) order.push({ item, repeat });
  return order;
}
