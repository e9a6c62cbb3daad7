// Entry of the template sandbox worker (bundled as out/template-worker.js): parses and renders
// chat templates for the host, which waits for each answer at most its time limit and ends this
// worker when it is late. Parsed templates are kept by source, since a chat renders its model's
// template every turn.

import { Template } from "@huggingface/jinja";
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import { installRenderGuards } from "./render-guards";
import { TemplateLimitError } from "./sandbox-limits";
import { SIGNAL_ANSWERED, SIGNAL_READY, type SandboxReply, type SandboxRequest, type SandboxWorkerData } from "./sandbox-protocol";

const KEEP_PARSED = 8;

const data = workerData as SandboxWorkerData & { readonly port: MessagePort };
const signal = new Int32Array(data.signal);
const parsed = new Map<string, Template>();
installRenderGuards(data.limits);

function templateOf(source: string): Template {
  let template = parsed.get(source);
  if (!template) {
    template = new Template(source);
    if (parsed.size >= KEEP_PARSED) parsed.delete(parsed.keys().next().value as string);
    parsed.set(source, template);
  }
  return template;
}

function answer(request: SandboxRequest): SandboxReply {
  try {
    const template = templateOf(request.source);
    const text = request.op === "render" ? template.render(request.context) : "";
    return { id: request.id, ok: true, text };
  } catch (error) {
    const limit = error instanceof TemplateLimitError || error instanceof RangeError;
    return { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error), limit };
  }
}

data.port.on("message", (request: SandboxRequest) => {
  data.port.postMessage(answer(request));
  Atomics.store(signal, SIGNAL_ANSWERED, request.id);
  Atomics.notify(signal, SIGNAL_ANSWERED);
});
Atomics.store(signal, SIGNAL_READY, 1);
Atomics.notify(signal, SIGNAL_READY);
// The host never messages the parent port; keep it from holding anything open.
parentPort?.unref();
