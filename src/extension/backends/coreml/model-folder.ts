// Finds the pieces of a Core ML model on disk: the .mlpackage or .mlmodelc, the
// tokenizer.json and tokenizer_config.json (chat template) beside it. Public stateful
// models (swift-transformers layout) and ours share this layout.
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { ModelInvalidError, ModelNotFoundError } from "../../core/errors";

type CoreMLModelKind = "mlpackage" | "mlmodelc";

export interface CoreMLModelFolder {
  readonly modelPath: string;
  readonly kind: CoreMLModelKind;
  readonly modelName: string;
  readonly tokenizerJsonPath: string;
  readonly tokenizerConfigPath: string;
  /**
   * Multifunction models: the converter's manifest.json `functions` {prefill, decode}, or
   * an optional stateful_chat.json {"functions": {"prefill", "decode"}} for other packages.
   */
  readonly functions?: { readonly prefill: string; readonly decode: string };
}

function kindOf(file: string): CoreMLModelKind | undefined {
  if (file.endsWith(".mlpackage")) return "mlpackage";
  if (file.endsWith(".mlmodelc")) return "mlmodelc";
  return undefined;
}

/** Cheap, synchronous-free check used by backend choice: is this path a Core ML model? */
export async function isCoreMLModelPath(modelPath: string): Promise<boolean> {
  if (kindOf(modelPath.replace(/[\\/]+$/, ""))) return true;
  try {
    const entries = await fs.readdir(modelPath);
    return entries.some((entry) => kindOf(entry) !== undefined);
  } catch {
    return false;
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}

async function findFirst(folders: readonly string[], name: string): Promise<string | undefined> {
  for (const folder of folders) {
    const candidate = path.join(folder, name);
    if (await exists(candidate)) return candidate;
  }
  return undefined;
}

export async function resolveModelFolder(modelPath: string): Promise<CoreMLModelFolder> {
  const given = path.resolve(modelPath.replace(/[\\/]+$/, ""));
  if (!(await exists(given))) throw new ModelNotFoundError(given);
  let model = given;
  let kind = kindOf(given);
  if (!kind) {
    const entries = (await fs.readdir(given)).sort();
    // Prefer a compiled model when both are shipped: no compile step at all.
    const chosen = entries.find((entry) => kindOf(entry) === "mlmodelc") ?? entries.find((entry) => kindOf(entry) === "mlpackage");
    if (!chosen) throw new ModelInvalidError(given, "no .mlpackage or .mlmodelc inside");
    model = path.join(given, chosen);
    kind = kindOf(chosen);
  }
  const folders = [path.dirname(model), model];
  const tokenizerJsonPath = await findFirst(folders, "tokenizer.json");
  if (!tokenizerJsonPath) throw new ModelInvalidError(model, "tokenizer.json not found beside the model");
  const tokenizerConfigPath = await findFirst(folders, "tokenizer_config.json");
  if (!tokenizerConfigPath) throw new ModelInvalidError(model, "tokenizer_config.json (chat template) not found beside the model");
  let functions: CoreMLModelFolder["functions"];
  for (const name of ["stateful_chat.json", "manifest.json"]) {
    const file = await findFirst(folders, name);
    if (!file || functions) continue;
    let parsed: { functions?: { prefill?: unknown; decode?: unknown } };
    try {
      parsed = JSON.parse(await fs.readFile(file, "utf8")) as typeof parsed;
    } catch (error) {
      throw new ModelInvalidError(file, `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
    }
    const prefill = parsed.functions?.prefill;
    const decode = parsed.functions?.decode;
    if (typeof prefill === "string" && typeof decode === "string") functions = { prefill, decode };
  }
  return {
    modelPath: model,
    kind: kind ?? "mlpackage",
    modelName: path.basename(model).replace(/\.(mlpackage|mlmodelc)$/, ""),
    tokenizerJsonPath,
    tokenizerConfigPath,
    functions,
  };
}
