// Which runs one scenario is made of: each speculative configuration of ours, each of the
// peer's (with the peer variant that is its best client setup for that scenario), plus the
// scenario's other peer variants at the peer's default, in alternated repeats.

import type { ScenarioId } from "./scenarios";
import { alternate, specLabel, type SpecConfig } from "./spec-configs";

export interface PeerVariant {
  readonly label: string;
  readonly slots: number;
  readonly fit: "prune" | "none";
}

export interface PlannedRun {
  readonly config: SpecConfig;
  /** Set for the peer's runs. */
  readonly variant?: PeerVariant;
  /** The configuration label, with the variant when it is not the scenario's main one. */
  readonly label: string;
  /** False for the scenario's other peer variants (they do not compete for the peer's best). */
  readonly main: boolean;
  readonly repeat: number;
}

/**
 * The peer's client setups for a scenario, the main one first: b gives each chat its own slot
 * (and also runs one slot), d drops the oldest exchanges (and also sends everything).
 */
export function peerVariants(id: ScenarioId): PeerVariant[] {
  if (id === "b") return [{ label: "-np 2", slots: 2, fit: "prune" }, { label: "-np 1", slots: 1, fit: "prune" }];
  if (id === "d") return [{ label: "client drops oldest", slots: 1, fit: "prune" }, { label: "client sends all", slots: 1, fit: "none" }];
  return [{ label: "", slots: 1, fit: "prune" }];
}

export function planScenarioRuns(id: ScenarioId, configs: readonly SpecConfig[], repeats: number, peer: boolean): PlannedRun[] {
  const [main, ...others] = peerVariants(id);
  const withVariant = (config: SpecConfig, variant: PeerVariant | undefined) => ({
    config,
    variant,
    main: variant === undefined || variant === main,
    label: variant?.label ? `${specLabel(config)} (${variant.label})` : specLabel(config),
  });
  const items = [
    ...configs.filter((c) => c.side === "ours").map((c) => withVariant(c, undefined)),
    ...(peer ? configs.filter((c) => c.side === "peer").map((c) => withVariant(c, main)) : []),
    ...(peer && configs.some((c) => specLabel(c) === "peer:default") ? others.map((v) => withVariant({ side: "peer", mode: "default" }, v)) : []),
  ];
  return alternate(items, repeats).map(({ item, repeat }) => ({ ...item, repeat }));
}
