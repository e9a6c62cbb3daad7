// Apply, in VS Code: find the target, read it (refusing what Apply must not touch), plan the
// cheapest strategy (core/apply), and make the change as one undoable WorkspaceEdit on the
// document (a dirty document is edited in memory, nothing is written before Keep), then show
// it in the diff editor, original ↔ edited, with Keep and Undo in its title. Fast apply runs
// the chat's model in a side session, streaming its rewrite into a proposal document shown
// as a diff; a rewrite that is cut off or strays far from the change stays a proposal.

import { basename } from "node:path";
import * as vscode from "vscode";
import { regionText, spliceRegion, type FastApplyCheck, type FastApplyRequest, checkFastApply, parseFastApplyReply } from "../../core/apply/fast-apply";
import { measureFastApply, runFastApply } from "../../core/apply/fast-apply-run";
import { minimalEdit } from "../../core/apply/minimal-edit";
import { planApply, type ApplyPlan, type ApplyStrategy, type SymbolRange } from "../../core/apply/strategy";
import type { Region } from "../../core/apply/lines";
import type { Engine } from "../../core/engine";
import { CancelledError, toStatefulChatError } from "../../core/errors";
import type { SpeculationStats } from "../../core/stats";
import type { ApplyState, SettledApplyState } from "../../../webview/protocol/messages";
import type { WorkspaceFileIndex } from "../context/workspace-files";
import { readApplySettings } from "../settings/settings";
import { PendingChanges } from "./pending";
import { ScriptedPrompts, vscodePrompts } from "./prompts";
import { judgeApplyTarget, readTarget, resolveTarget, type ApplyTarget } from "./target";
import { closeDiffsOf, columnOfDiff, diffColumn, VirtualDocuments } from "./virtual-documents";

export interface ApplyRequest {
  readonly code: string;
  /** The fence's language, for the fast-apply prompt. */
  readonly language?: string;
  /** The file the block names, as written. */
  readonly namedPath?: string;
  /** The file the question was about (its chip), when the block names none. */
  readonly fallbackPath?: string;
  readonly saysWholeFile?: boolean;
  /** Fast apply straight away (the user chose it after a refusal). */
  readonly forceFast?: boolean;
  /** The chat's model, for fast apply; without it fast apply is refused. */
  readonly engine?: () => Promise<Engine>;
  /** The file as the chat's model last saw it (by workspace-relative path). */
  readonly seen?: (label: string) => string | undefined;
  /** Progress and outcome, then kept / undone (the chat's code block shows them). */
  readonly notify?: (state: ApplyState, message: string, offerFast?: boolean) => void;
  readonly signal?: AbortSignal;
}

export interface ApplyOutcome {
  /** How the apply ended (a block's later word, kept or undone, comes through `notify`). */
  readonly status: Exclude<ApplyState, "working" | SettledApplyState>;
  readonly message: string;
  /** Workspace-relative path of the target, once known. */
  readonly path?: string;
  readonly strategy?: ApplyStrategy;
  /** Fast apply may still do it: the user is offered it. */
  readonly offerFast?: boolean;
  readonly created?: boolean;
  /** Fast apply: what speculative decoding did. */
  readonly speculation?: SpeculationStats;
}

const SYMBOL_TIMEOUT_MS = 15_000;
const PROPOSAL_UPDATE_MS = 100;

export class ApplyController implements vscode.Disposable {
  readonly documents = new VirtualDocuments();
  readonly pending: PendingChanges;
  readonly prompts = new ScriptedPrompts(vscodePrompts);
  /** Testing: the model's fast-apply reply, instead of running the model. */
  scriptedFastReply: string | undefined;
  private readonly busy = new Set<string>();
  private readonly running = new Set<AbortController>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(
    private readonly files: () => WorkspaceFileIndex,
    private readonly activeFile: () => vscode.Uri | undefined,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.pending = new PendingChanges(this.documents, (message) => log.info(message));
    this.subscriptions = [this.documents, this.pending];
  }

  /** Applies one block; never throws (a failure is an outcome with a message). */
  async apply(request: ApplyRequest): Promise<ApplyOutcome> {
    request.notify?.("working", "Applying…");
    let outcome: ApplyOutcome;
    try {
      outcome = await this.run(request);
    } catch (error) {
      const typed = toStatefulChatError(error);
      outcome = typed instanceof CancelledError || typed.code === "cancelled" ? { status: "cancelled", message: "Stopped: nothing changed." } : { status: "error", message: `Apply failed: ${typed.message}` };
      this.log.warn(`Apply failed: ${String(error)}`);
    }
    request.notify?.(outcome.status, outcome.message, outcome.offerFast);
    return outcome;
  }

  /** Stops every running fast apply (its progress notification's Cancel does the same for one). */
  cancelAll(): void {
    for (const controller of this.running) controller.abort();
  }

  private async run(request: ApplyRequest): Promise<ApplyOutcome> {
    const resolved = await resolveTarget({
      named: request.namedPath,
      fallback: request.namedPath === undefined ? request.fallbackPath : undefined,
      prompts: this.prompts,
      files: this.files(),
      activeFile: this.activeFile(),
    });
    if (!resolved.ok) return { status: resolved.status, message: resolved.message };
    const target = resolved.target;
    const key = target.uri.toString();
    if (this.busy.has(key)) return { status: "error", message: `Apply is already changing ${target.label}: wait for it to finish.`, path: target.label };
    this.busy.add(key);
    try {
      return await this.applyTo(target, request);
    } finally {
      this.busy.delete(key);
    }
  }

  private async applyTo(target: ApplyTarget, request: ApplyRequest): Promise<ApplyOutcome> {
    const path = target.label;
    const verdict = await judgeApplyTarget(target);
    if (verdict.kind === "refused") return { status: "error", message: `${verdict.reason} Nothing changed.`, path };
    if (verdict.kind === "confirm" && !(await this.prompts.confirmSensitive(path, verdict.reason))) return { status: "cancelled", message: `${path} was left as it is: nothing changed.`, path };
    if (!target.exists && !(await this.prompts.confirmCreate(path))) return { status: "cancelled", message: `${path} was not created: nothing changed.`, path };
    const { maxFileBytes } = readApplySettings();
    const content = await readTarget(target, maxFileBytes);
    if (!content.ok) return { status: content.status, message: content.message, path };
    const seen = target.exists ? request.seen?.(path) : undefined;
    const input = { original: content.text, code: request.code, saysWholeFile: request.saysWholeFile, seen, forceFast: request.forceFast, label: path };
    let plan = planApply(input);
    if (plan.kind === "fast" && target.exists) {
      // The symbol the block defines may place it; and a region is cheaper to rewrite than the file.
      const symbols = await this.symbolsOf(target.uri);
      if (symbols.length > 0) {
        const withSymbols = planApply({ ...input, forceFast: false, symbols });
        plan = !request.forceFast ? withSymbols : withSymbols.kind === "fast" ? withSymbols : plan;
      }
    }
    return this.carryOut(target, content.text, content.languageId, plan, request);
  }

  private async carryOut(target: ApplyTarget, original: string | undefined, languageId: string | undefined, plan: ApplyPlan, request: ApplyRequest): Promise<ApplyOutcome> {
    const path = target.label;
    switch (plan.kind) {
      case "unchanged":
        return { status: "unchanged", message: `${path} already has this code: nothing to change.`, path, strategy: plan.strategy };
      case "refused":
        return {
          status: "error",
          message: `${plan.message} Nothing changed.${plan.fastRegion && request.engine ? " Fast apply can merge it with the model." : ""}`,
          path,
          offerFast: plan.fastRegion !== undefined && request.engine !== undefined,
        };
      case "edit":
        return this.edit(target, original, plan.text, request, { strategy: plan.strategy, region: plan.region });
      case "fast":
        return this.fastApply(target, original ?? "", languageId, plan.region, request);
    }
  }

  /** The change as one WorkspaceEdit (the smallest whole-line replacement), then the diff editor. */
  private async edit(target: ApplyTarget, before: string | undefined, text: string, request: ApplyRequest, how: { strategy: ApplyStrategy; region: Region; speculation?: SpeculationStats }): Promise<ApplyOutcome> {
    const path = target.label;
    const uri = target.uri;
    const edit = new vscode.WorkspaceEdit();
    let wasDirty = false;
    if (!target.exists) {
      edit.createFile(uri, { ignoreIfExists: false });
      edit.insert(uri, new vscode.Position(0, 0), text);
    } else {
      const document = await vscode.workspace.openTextDocument(uri);
      if (document.getText() !== before) return { status: "error", message: `${path} changed while Apply was working: nothing changed. Apply again.`, path };
      wasDirty = await differsFromDisk(document);
      const change = minimalEdit(document.getText(), text);
      if (!change) return { status: "unchanged", message: `${path} already has this code: nothing to change.`, path, strategy: how.strategy };
      edit.replace(uri, new vscode.Range(document.positionAt(change.start), document.positionAt(change.end)), change.text);
    }
    if (!(await vscode.workspace.applyEdit(edit))) return { status: "error", message: `VS Code did not apply the edit to ${path}: nothing changed.`, path };
    const document = await vscode.workspace.openTextDocument(uri);
    let pending = this.pending.get(uri);
    if (pending) {
      pending.appliedVersion = document.version;
      pending.appliedText = document.getText();
    } else {
      pending = {
        uri,
        label: path,
        original: target.exists ? before : undefined,
        wasDirty,
        originalUri: this.documents.create("original", basename(uri.path), before ?? ""),
        appliedVersion: document.version,
        appliedText: document.getText(),
        listeners: [],
      };
      this.pending.add(pending);
    }
    const notify = request.notify;
    if (notify) pending.listeners.push((settled, message) => notify(settled, message));
    await vscode.commands.executeCommand("vscode.diff", pending.originalUri, uri, `${basename(uri.path)}: Original ↔ Applied`, { preview: false, viewColumn: diffColumn(uri) });
    pending.column = columnOfDiff(uri) ?? pending.column;
    this.log.info(`Apply: ${path}, ${how.strategy}${target.exists ? `, lines ${how.region.start + 1}–${how.region.end}` : ", new file"}${wasDirty ? ", unsaved changes kept in memory" : ""}`);
    const where = !target.exists ? "a new file" : describe(how.strategy, how.region);
    return {
      status: "applied",
      message: `Applied to ${path} (${where}). Review the diff, then Keep or Undo.`,
      path,
      strategy: how.strategy,
      created: !target.exists,
      speculation: how.speculation,
    };
  }

  private async fastApply(target: ApplyTarget, original: string, languageId: string | undefined, wanted: Region, request: ApplyRequest): Promise<ApplyOutcome> {
    const path = target.label;
    const lines = original === "" ? 0 : original.replace(/\r?\n$/, "").split(/\r?\n/).length;
    const region = { start: Math.max(0, wanted.start), end: Math.min(lines, wanted.end) };
    if (!request.engine && this.scriptedFastReply === undefined) {
      return { status: "error", message: `No place for the block in ${path} without the model (fast apply runs from a chat's code block): nothing changed.`, path };
    }
    const fastRequest: FastApplyRequest = {
      path,
      language: request.language || languageId || "",
      original: regionText(original, region),
      code: request.code,
      lines: region.start === 0 && region.end === lines ? undefined : { first: region.start + 1, last: region.end, total: lines },
    };
    const fileName = basename(target.uri.path);
    const originalUri = this.documents.create("proposal-original", fileName, original);
    const proposalUri = this.documents.create("proposal", fileName, original);
    const forget = async () => {
      await closeDiffsOf(proposalUri);
      this.documents.forget(proposalUri);
      this.documents.forget(originalUri);
    };
    const regionLines = fastRequest.original.split("\n");
    let timer: ReturnType<typeof setTimeout> | undefined;
    let latest = "";
    const show = () => {
      timer = undefined;
      // The rewrite so far, then the region's lines it has not reached yet: the diff shows only real changes.
      const written = latest === "" ? [] : latest.split("\n");
      const rest = regionLines.slice(written.length);
      this.documents.update(proposalUri, spliceRegion(original, region, [...written, ...rest].join("\n")));
    };
    const onCode = (code: string) => {
      latest = code;
      timer ??= setTimeout(show, PROPOSAL_UPDATE_MS);
    };

    let result: { code: string; check: FastApplyCheck; speculation?: SpeculationStats };
    const controller = new AbortController();
    const abort = () => controller.abort();
    request.signal?.addEventListener("abort", abort);
    this.running.add(controller);
    try {
      if (request.signal?.aborted) throw new CancelledError();
      if (this.scriptedFastReply !== undefined) {
        const parsed = parseFastApplyReply(this.scriptedFastReply);
        onCode(parsed.code);
        result = { code: parsed.code, check: checkFastApply({ original: fastRequest.original, code: request.code, reply: parsed, stopReason: "eog" }) };
      } else {
        const engine = await request.engine!();
        const { budget } = measureFastApply(engine, fastRequest);
        if (!budget.fits) {
          await forget();
          return {
            status: "error",
            message: `${path} is too large for fast apply: the rewrite needs about ${(budget.promptTokens + budget.maxTokens).toLocaleString()} tokens and the model's context holds ${engine.info.capacity.toLocaleString()} (statefulChat.contextSize). Nothing changed.`,
            path,
          };
        }
        await vscode.commands.executeCommand("vscode.diff", originalUri, proposalUri, `${fileName}: fast apply…`, { preview: false, viewColumn: diffColumn(target.uri) });
        request.notify?.("working", `Fast apply: the model rewrites ${describeRegion(region, lines)}…`);
        const run = await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: `Stateful Chat: fast apply to ${path}`, cancellable: true },
          (_progress, token) => {
            const subscription = token.onCancellationRequested(abort);
            return runFastApply(engine, fastRequest, { signal: controller.signal, onCode }).finally(() => {
              subscription.dispose();
            });
          },
        );
        result = { code: run.parsed.code, check: run.check, speculation: run.stats.speculation };
      }
    } catch (error) {
      await forget();
      if (error instanceof CancelledError || controller.signal.aborted) return { status: "cancelled", message: "Fast apply stopped: nothing changed.", path };
      throw error;
    } finally {
      clearTimeout(timer);
      this.running.delete(controller);
      request.signal?.removeEventListener("abort", abort);
    }
    if (controller.signal.aborted) {
      await forget();
      return { status: "cancelled", message: "Fast apply stopped: nothing changed.", path };
    }
    const proposed = spliceRegion(original, region, result.code);
    if (!result.check.ok) {
      // Shown as a diff, not applied.
      this.documents.update(proposalUri, proposed);
      await closeDiffsOf(proposalUri);
      await vscode.commands.executeCommand("vscode.diff", originalUri, proposalUri, `${fileName}: fast apply proposal (not applied)`, { preview: false, viewColumn: diffColumn(target.uri) });
      return { status: "proposed", message: `Fast apply's rewrite of ${path} was not applied: ${result.check.message}. It is shown as a diff; nothing changed.`, path, strategy: "fast", speculation: result.speculation };
    }
    await forget();
    if (proposed === original) return { status: "unchanged", message: `Fast apply left ${path} as it was: nothing to change.`, path, strategy: "fast" };
    return this.edit(target, original, proposed, request, { strategy: "fast", region, speculation: result.speculation });
  }

  /** The document's symbols, flattened (none when its language has no provider, or it takes too long). */
  private async symbolsOf(uri: vscode.Uri): Promise<SymbolRange[]> {
    type Found = Array<vscode.DocumentSymbol | vscode.SymbolInformation> | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<Found>((resolve) => (timer = setTimeout(() => resolve(undefined), SYMBOL_TIMEOUT_MS)));
    try {
      const found = await Promise.race([Promise.resolve(vscode.commands.executeCommand<Found>("vscode.executeDocumentSymbolProvider", uri)), timeout]);
      const out: SymbolRange[] = [];
      const walk = (symbols: readonly vscode.DocumentSymbol[], depth: number) => {
        for (const s of symbols) {
          out.push({ name: s.name, startLine: s.range.start.line, endLine: s.range.end.line, depth });
          walk(s.children ?? [], depth + 1);
        }
      };
      for (const s of found ?? []) {
        if ("children" in s) walk([s], 0);
        else out.push({ name: s.name, startLine: s.location.range.start.line, endLine: s.location.range.end.line, depth: s.containerName ? 1 : 0 });
      }
      return out;
    } catch (error) {
      this.log.warn(`Document symbols of ${uri.toString()} failed: ${String(error)}`);
      return [];
    } finally {
      clearTimeout(timer);
    }
  }

  dispose(): void {
    this.cancelAll();
    for (const d of this.subscriptions.splice(0)) d.dispose();
  }
}

/**
 * Whether the document holds unsaved changes: its text against the file's (the host's dirty
 * flag can lag just after an edit, and Keep saves only what was saved before).
 */
async function differsFromDisk(document: vscode.TextDocument): Promise<boolean> {
  if (document.isDirty) return true;
  try {
    const disk = new TextDecoder("utf-8").decode(await vscode.workspace.fs.readFile(document.uri)).replace(/^\uFEFF/, "");
    return disk !== document.getText();
  } catch {
    return true;
  }
}

function describe(strategy: ApplyStrategy, region: Region): string {
  switch (strategy) {
    case "whole":
      return "the whole file";
    case "anchored":
      return `lines ${region.start + 1}–${region.end}, found by the block's first and last lines`;
    case "symbol":
      return `lines ${region.start + 1}–${region.end}, the symbol the block defines`;
    case "fast":
      return "merged by fast apply";
  }
}

function describeRegion(region: Region, lines: number): string {
  return region.start === 0 && region.end >= lines ? "the file" : `lines ${region.start + 1}–${region.end}`;
}
