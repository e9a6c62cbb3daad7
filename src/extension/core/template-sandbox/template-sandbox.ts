// Runs chat templates in a worker thread the host waits on synchronously, for at most a time
// limit. Rendering stays a plain synchronous call for the core (a turn renders its
// conversation between two awaits), yet a template that loops without end blocks the host for
// the limit and no longer: the late worker is ended and the next render starts a fresh one.
// The worker also bounds what one step may allocate (render-guards.ts), since some
// allocations abort a whole process before any limit applies.
//
// How the host waits: the worker posts its answer on a MessagePort and bumps a shared counter;
// the host sleeps on the counter with Atomics.wait and takes the answer with
// receiveMessageOnPort, which needs no turn of the event loop. (synckit does this too, but it
// cannot end a worker that is late, which is the point here.)

import { existsSync } from "node:fs";
import { join } from "node:path";
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import { DEFAULT_SANDBOX_LIMITS, TemplateLimitError, type SandboxLimits } from "./sandbox-limits";
import { SIGNAL_ANSWERED, SIGNAL_READY, isSandboxReply, type SandboxRequest, type SandboxWorkerData } from "./sandbox-protocol";

/** A template error that is the template's own (a parse error, raise_exception, a missing key). */
class TemplateFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TemplateFailedError";
  }
}

interface LiveWorker {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly signal: Int32Array;
}

/**
 * The bundled worker: next to this bundle (out/), or, when this module runs from its
 * TypeScript source (tests under tsx), the repository's out/ from `npm run build`. The worker
 * cannot run from source: tsx's loader hooks answer on the host's thread, which is asleep in
 * Atomics.wait while the worker boots.
 */
function templateWorkerEntry(): string {
  const candidates = [join(__dirname, "template-worker.js"), join(__dirname, "..", "..", "..", "..", "out", "template-worker.js")];
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new Error(`The template sandbox worker is missing (looked for ${candidates.join(" and ")}); build it with npm run build.`);
  return found;
}

export class TemplateSandbox {
  private live: LiveWorker | undefined;
  private nextId = 1;
  private restarts = 0;

  constructor(
    readonly limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS,
    /** The worker's script; defaults to templateWorkerEntry(). */
    private readonly entry?: string,
  ) {}

  /** Parses `source`; throws TemplateFailedError when it does not parse. */
  parse(source: string): void {
    this.call({ id: this.nextId++, op: "parse", source });
  }

  render(source: string, context: Readonly<Record<string, unknown>>): string {
    return this.call({ id: this.nextId++, op: "render", source, context });
  }

  /** How many workers were ended for being late (for tests and diagnostics). */
  get workersEnded(): number {
    return this.restarts;
  }

  dispose(): void {
    this.end();
  }

  private call(request: SandboxRequest): string {
    const live = this.worker();
    live.port.postMessage(request);
    const deadline = Date.now() + this.limits.timeMs;
    for (;;) {
      // Read before the port is looked at: an answer landing between the look and the sleep
      // then changes the counter from this value, and the sleep ends at once ("not-equal")
      // instead of lasting the whole time limit.
      const seen = Atomics.load(live.signal, SIGNAL_ANSWERED);
      const received = receiveMessageOnPort(live.port);
      if (received) {
        const reply: unknown = received.message;
        if (!isSandboxReply(reply) || reply.id !== request.id) continue;
        if (reply.ok) return reply.text;
        if (reply.limit) throw new TemplateLimitError(reply.error);
        throw new TemplateFailedError(reply.error);
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        this.restarts++;
        this.end();
        throw new TemplateLimitError(`it ran past the ${this.limits.timeMs} ms the template sandbox allows (a loop without end, or work far beyond any real template)`);
      }
      Atomics.wait(live.signal, SIGNAL_ANSWERED, seen, left);
    }
  }

  private worker(): LiveWorker {
    if (this.live) return this.live;
    const { port1, port2 } = new MessageChannel();
    const signal = new Int32Array(new SharedArrayBuffer(8));
    const workerData: SandboxWorkerData & { port: MessagePort } = { signal: signal.buffer as SharedArrayBuffer, limits: this.limits, port: port2 };
    const worker = new Worker(this.entry ?? templateWorkerEntry(), {
      workerData,
      transferList: [port2],
      resourceLimits: { maxOldGenerationSizeMb: this.limits.heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
    });
    // A worker that dies (its heap limit) answers no more; the host sees it as late. Its
    // 'error' event must have a listener or it would be thrown in the host.
    worker.on("error", () => undefined);
    worker.on("exit", () => {
      if (this.live?.worker === worker) this.live = undefined;
    });
    worker.unref();
    port1.unref();
    // Boot (loading the bundle) is not the template's time: wait for it separately.
    if (Atomics.wait(signal, SIGNAL_READY, 0, this.limits.startMs) === "timed-out") {
      void worker.terminate();
      throw new Error(`The template sandbox worker did not start within ${this.limits.startMs} ms.`);
    }
    this.live = { worker, port: port1, signal };
    return this.live;
  }

  private end(): void {
    const live = this.live;
    this.live = undefined;
    if (!live) return;
    live.port.close();
    void live.worker.terminate();
  }
}

let shared: TemplateSandbox | undefined;

/** The process's sandbox: one worker serves every template. */
export function sharedTemplateSandbox(): TemplateSandbox {
  shared ??= new TemplateSandbox();
  return shared;
}
