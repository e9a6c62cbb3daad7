// The one list of speculative decoding modes (setting statefulChat.speculative, CLI
// --speculative, the engine request): every layer that validates a mode imports it from here.

export const SPECULATIVE_MODES = ["auto", "off", "lookup", "draft"] as const;
export type SpeculativeMode = (typeof SPECULATIVE_MODES)[number];

export function isSpeculativeMode(value: unknown): value is SpeculativeMode {
  return typeof value === "string" && (SPECULATIVE_MODES as readonly string[]).includes(value);
}
