// What the status bar item says about the active chat: its model (short name), where it runs
// (CPU threads, or the GPU API with the layers on it), how full its context is, and a spinner
// while the model loads or a reply is generated. Pure (no `vscode`): unit-tested.

import type { EnginePlacement } from "../core/engine";

export interface StatusChat {
  readonly state: "idle" | "loading" | "generating" | "ready" | "failed";
  readonly model?: { readonly name: string; readonly backend: string; readonly placement?: EnginePlacement };
  readonly position: number;
  readonly capacity: number;
}

export interface StatusView {
  readonly text: string;
  readonly tooltip: string;
}

const SPINNER = "$(loading~spin)";
const CLICK = "Click to select a model.";
const GPU_APIS: Readonly<Record<string, string>> = { cuda: "CUDA", vulkan: "Vulkan", metal: "Metal" };

/** "SmolLM2-135M-Instruct.Q4_1.gguf" → "SmolLM2-135M": no extension, quantization or "-Instruct". */
export function shortModelName(name: string): string {
  const short = name
    .replace(/\.(gguf|mlpackage|mlmodelc)$/i, "")
    .replace(/[.-](i?q\d[\w]*|f16|f32|bf16|\d+bit)$/i, "")
    .replace(/[.-]instruct$/i, "");
  return short || name;
}

/** 950 → "950", 1234 → "1.2k", 4096 → "4k", 32768 → "32k" (k = 1024 tokens, as context sizes are named). */
export function tokenCount(n: number): string {
  if (n < 1024) return String(Math.max(0, Math.round(n)));
  const k = n / 1024;
  return `${k >= 10 ? Math.round(k) : Number(k.toFixed(1))}k`;
}

/** Where the model computes, in a few characters: "CPU 2t", "Vulkan GPU", "CUDA GPU 20/31", "server", "Core ML". */
export function placementLabel(model: NonNullable<StatusChat["model"]>): string {
  const placement = model.placement;
  if (placement) {
    if (placement.compute === "cpu" || placement.layersOffloaded === 0) return `CPU ${placement.threads}t`;
    const api = GPU_APIS[placement.compute] ?? placement.compute;
    return placement.layersOffloaded < placement.layers ? `${api} GPU ${placement.layersOffloaded}/${placement.layers}` : `${api} GPU`;
  }
  if (model.backend === "remote") return "server";
  if (model.backend === "coreml") return "Core ML";
  return model.backend;
}

export function statusText(chat: StatusChat): StatusView {
  if (chat.state === "loading") return { text: `${SPINNER} Loading model…`, tooltip: `Stateful Chat: loading the model. ${CLICK}` };
  const model = chat.model;
  if (!model) {
    return chat.state === "failed"
      ? { text: "$(warning) No model", tooltip: `Stateful Chat: the model did not load. ${CLICK}` }
      : { text: "$(chip) Stateful Chat", tooltip: `Stateful Chat: no model loaded yet. ${CLICK}` };
  }
  const icon = chat.state === "generating" ? SPINNER : "$(chip)";
  const fill = chat.capacity > 0 ? ` · ${tokenCount(chat.position)}/${tokenCount(chat.capacity)}` : "";
  const percent = chat.capacity > 0 ? Math.round((100 * chat.position) / chat.capacity) : 0;
  const lines = [
    `Model: ${model.name} (${model.backend})`,
    `Runs on: ${model.placement?.summary ?? placementLabel(model)}`,
    `Context: ${chat.position.toLocaleString("en-US")} of ${chat.capacity.toLocaleString("en-US")} tokens (${percent}%)`,
    chat.state === "generating" ? "Generating a reply…" : "",
    CLICK,
  ];
  return { text: `${icon} ${shortModelName(model.name)} · ${placementLabel(model)}${fill}`, tooltip: lines.filter(Boolean).join("\n") };
}
