// Speculative decoding for a loaded engine, from the request's `speculative` mode: the
// target wrapped in a SpeculativeEngine (core/speculation/), with the draft model loaded
// beside it and checked to share the target's vocabulary. The verify cost is remembered
// next to the thread calibration.

import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { availableParallelism, cpus } from "node:os";
import { dirname, join } from "node:path";
import type { Engine, Tokenizer } from "../core/engine";
import type { EngineRequest } from "../core/engine-options";
import { ModelInvalidError } from "../core/errors";
import { isVerifyCost, type CalibrationStore, type VerifyCost } from "../core/speculation/verify-cost";
import { SpeculativeEngine } from "../core/speculation/speculative-engine";

export async function withSpeculation(target: Engine, request: EngineRequest, loadDraft: (path: string) => Promise<Engine>): Promise<Engine> {
  const mode = request.speculative ?? "auto";
  if (mode === "off") return target;
  if (mode === "draft" && !request.draftModelPath) {
    await target.dispose();
    throw new ModelInvalidError("(no draft model)", "speculative mode `draft` needs a draft model (statefulChat.draftModelPath, --draft-model)");
  }
  let draftEngine: Engine | undefined;
  if (request.draftModelPath && mode !== "lookup") {
    try {
      draftEngine = await loadDraft(request.draftModelPath);
      assertSameVocabulary(target.tokenizer, draftEngine.tokenizer, request.draftModelPath);
    } catch (error) {
      await draftEngine?.dispose();
      await target.dispose();
      throw error;
    }
  }
  const calibration = request.threadCalibrationFile
    ? fileStore(join(dirname(request.threadCalibrationFile), "speculation-cost.json"), deviceKey(target))
    : undefined;
  return new SpeculativeEngine(target, { mode, draftEngine, calibration });
}

/** Text that touches code, prose, Unicode and whitespace runs: two vocabularies that agree on it agree on what matters. */
const PROBES = [
  "def fibonacci(n: int) -> int:\n    return n if n < 2 else fibonacci(n - 1) + fibonacci(n - 2)\n",
  "const answer = await fetch(`/api/${id}`).then((r) => r.json()); // 42\n\t\t}\n",
  "Grüße, naïve café — 東京 🚀 «quotes» and\r\n    indented text.",
];

export function assertSameVocabulary(target: Tokenizer, draft: Tokenizer, draftPath: string): void {
  for (const probe of PROBES) {
    const a = target.encode(probe, { specials: false });
    const b = draft.encode(probe, { specials: false });
    if (a.length !== b.length || a.some((token, i) => token !== b[i])) {
      throw new ModelInvalidError(draftPath, "the draft model does not share the target model's vocabulary (its tokens for the same text differ), so its drafts cannot be verified");
    }
  }
  const ends = target.eosText ? target.encode(target.eosText, { specials: true }) : [];
  const draftEnds = target.eosText ? draft.encode(target.eosText, { specials: true }) : [];
  if (ends.join(",") !== draftEnds.join(",")) {
    throw new ModelInvalidError(draftPath, "the draft model's special tokens differ from the target model's");
  }
}

/**
 * The device a verify batch is timed on: on a GPU a batch of k tokens costs about one
 * decode, on a small CPU several, so a cost measured on one never stands for the other.
 */
function deviceKey(target: Engine): string {
  const placement = target.info.placement;
  if (!placement || placement.layersOffloaded === 0) return "cpu";
  return `${placement.compute}:${placement.device}:${placement.layersOffloaded}/${placement.layers}`;
}

function fileStore(file: string, device: string): CalibrationStore {
  // CPU keys as before (figures measured before devices were told apart stay valid).
  const machine = `${cpus()[0]?.model ?? ""}|${availableParallelism()}${device === "cpu" ? "" : `|${device}`}`;
  const readAll = async (): Promise<Record<string, unknown>> => {
    try {
      return JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>;
    } catch {
      return {};
    }
  };
  return {
    async read(key) {
      const value = (await readAll())[`${key}|${machine}`];
      return isVerifyCost(value) ? value : undefined;
    },
    async write(key, cost: VerifyCost) {
      const all = await readAll();
      await mkdir(dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify({ ...all, [`${key}|${machine}`]: cost }, null, 2));
      await rename(temporary, file);
    },
  };
}
