// The shell's part of the CUDA binaries fetched on first use (gpu-binaries/ decides, fetches,
// verifies, unpacks and links): VS Code's progress notification (cancellable; a cancelled or
// dropped download keeps its part and resumes on the retry), and the one notice when it ends
// without a binary. The engine then loads as always; its probe finds the CUDA binary, or
// skips it without a notice of its own and the CPU (or Vulkan) serves.

import { join } from "node:path";
import * as vscode from "vscode";
import type { EngineRequest, GpuChoice } from "../../core/engine-options";
import { llamaCppRuntimeFacts } from "../../backends/load-engine";
import { cudaPackagesFor, RETRY_GPU_DOWNLOAD_COMMAND } from "../../gpu-binaries/gpu-packages";
import { GPU_PINS_FILE, gpuPackagesDecision, noticeOf, provideGpuPackages, readGpuPins, type GpuFetchProgress } from "../../gpu-binaries/provide-gpu-packages";
import { readSettings } from "../settings/settings";

const MB = 1e6;

export class GpuBinaries {
  /** A failure already told: no new download, and no second notice, until the retry command. */
  private failedNotice: string | undefined;
  private running: Promise<string> | undefined;
  /** node-llama-cpp's answer on the NVIDIA driver, asked once (not before every load); the retry asks again. */
  private driverFound: Promise<boolean> | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /**
   * Before an engine loads: fetch the CUDA binary when the request may use it and it is missing.
   * A remote server's GPU is the server's own: nothing to fetch for it. Never throws.
   */
  async ensure(request: Pick<EngineRequest, "backend" | "gpu">): Promise<void> {
    if (request.backend === "remote" || request.gpu === undefined) return;
    await this.provide(request.gpu);
  }

  /** "Stateful Chat: Retry GPU Download": forget the failure and try now; the next load uses the binary. */
  async retry(): Promise<void> {
    this.failedNotice = undefined;
    this.driverFound = undefined;
    const gpu = readSettings().gpu;
    // Asked for by name: fetched even when the setting is off (it then waits for gpu: auto or cuda).
    const outcome = await this.provide(gpu === "auto" ? "auto" : "cuda");
    if (this.failedNotice === undefined) void vscode.window.showInformationMessage(`Stateful Chat: ${outcome}.`);
  }

  /** What happened, in a few words for the retry's answer. */
  private provide(choice: GpuChoice): Promise<string> {
    if ((choice !== "auto" && choice !== "cuda") || cudaPackagesFor(process.platform, process.arch).length === 0) return Promise.resolve("no CUDA binary for this platform");
    if (this.failedNotice !== undefined) return Promise.resolve(this.failedNotice);
    this.running ??= this.run(choice)
      .catch((error: unknown) => {
        // Never in the way of a load: the probe then decides without the fetched binary.
        this.log.warn(`CUDA binary check failed: ${String(error)}`);
        return `the CUDA binary check failed: ${error instanceof Error ? error.message : String(error)}`;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(choice: GpuChoice): Promise<string> {
    const nodeLlamaCppDir = llamaCppRuntimeFacts.packageDir();
    if (!nodeLlamaCppDir) return "node-llama-cpp is not installed";
    const base = {
      choice,
      pins: readGpuPins(join(this.context.extensionPath, "out", GPU_PINS_FILE)),
      storage: this.context.globalStorageUri.fsPath,
      nodeLlamaCppDir,
    };
    // Asked of node-llama-cpp (driver and CUDA runtime, the test its `auto` makes) only when a binary is missing.
    if (gpuPackagesDecision({ ...base, nvidiaDriver: true }).kind === "none") return "the CUDA binary is in place";
    this.driverFound ??= llamaCppRuntimeFacts.nvidiaDriverFound().catch((error: unknown) => {
      this.driverFound = undefined; // a failed question is asked again next time
      throw error;
    });
    const request = { ...base, nvidiaDriver: await this.driverFound };
    const decision = gpuPackagesDecision(request);
    if (decision.kind === "none") return decision.reason;
    if (decision.kind === "unavailable") return this.tell(decision.notice);
    const total = decision.pins.length;
    try {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: "Stateful Chat: downloading the CUDA binary", cancellable: true },
        async (progress, token) => {
          const cancel = new AbortController();
          token.onCancellationRequested(() => cancel.abort());
          let shown = 0;
          const onProgress = (p: GpuFetchProgress) => {
            const fraction = p.totalBytes ? p.receivedBytes / p.totalBytes : 0;
            const overall = ((p.index - 1 + fraction) / total) * 100;
            const size = p.totalBytes ? ` of ${Math.round(p.totalBytes / MB)} MB` : "";
            progress.report({ message: `${p.name} (${p.index}/${total}): ${Math.round(p.receivedBytes / MB)} MB${size}`, increment: overall - shown });
            shown = overall;
          };
          await provideGpuPackages(request, decision.pins, { onProgress, signal: cancel.signal });
        },
      );
      this.log.info(`CUDA binary in place: ${decision.pins.map((p) => `${p.name}@${p.version}`).join(", ")}`);
      return "the CUDA binary is in place; the next model load uses it";
    } catch (error) {
      this.log.warn(`CUDA binary download: ${String(error)}`);
      return this.tell(noticeOf(error));
    }
  }

  private tell(notice: string): string {
    this.failedNotice = notice;
    void vscode.window.showWarningMessage(notice, "Retry").then((choice) => {
      if (choice === "Retry") void vscode.commands.executeCommand(RETRY_GPU_DOWNLOAD_COMMAND);
    });
    return notice;
  }
}

export function registerGpuBinaries(context: vscode.ExtensionContext, gpuBinaries: GpuBinaries): void {
  context.subscriptions.push(vscode.commands.registerCommand(RETRY_GPU_DOWNLOAD_COMMAND, () => gpuBinaries.retry()));
}
