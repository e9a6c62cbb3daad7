// Which backend serves a model, and why, in words the UI and CLI can show as they are.
// Pure: the caller supplies what it knows (the shell reads settings; this reads nothing).
import type { BackendName } from "../../core/engine";

export type BackendSetting = BackendName | "auto";

export interface BackendChoice {
  readonly backend: BackendName;
  /** e.g. "Core ML (macOS 15+, Core ML model)" or "llama.cpp: Core ML needs macOS 15". */
  readonly reason: string;
  /** True when the user asked for Core ML and got llama.cpp instead. */
  readonly fellBack: boolean;
}

export function chooseBackend(input: {
  readonly setting: BackendSetting;
  readonly isCoreMLModel: boolean;
  readonly coreML: { readonly available: true } | { readonly available: false; readonly reason: string };
}): BackendChoice {
  const { setting, isCoreMLModel, coreML } = input;
  if (setting === "llamacpp") return { backend: "llamacpp", reason: "llama.cpp (chosen in settings)", fellBack: false };
  if (!coreML.available) {
    return {
      backend: "llamacpp",
      reason: `llama.cpp: ${coreML.reason}`,
      fellBack: setting === "coreml",
    };
  }
  if (setting === "coreml" || isCoreMLModel) {
    if (!isCoreMLModel) {
      return { backend: "llamacpp", reason: "llama.cpp: the model is not a Core ML model", fellBack: setting === "coreml" };
    }
    return { backend: "coreml", reason: "Core ML (macOS 15+, Core ML model)", fellBack: false };
  }
  return { backend: "llamacpp", reason: "llama.cpp (the model is not a Core ML model)", fellBack: false };
}
