// Guards installed inside the sandbox worker around @huggingface/jinja's interpreter. The
// worker's time limit ends a template that runs too long, but some single steps allocate so
// much at once (`range(10**9)`, a string doubled in a loop) that V8 aborts the whole process
// before any limit is seen, worker or not. These checks turn such steps into plain errors
// while the sizes are still small.

import { Environment, Interpreter } from "@huggingface/jinja";
import { TemplateLimitError, type SandboxLimits } from "./sandbox-limits";

/** Python's `range` with a bound on how many numbers it makes. */
function boundedRange(maxLength: number): (start: number, stop?: number, step?: number) => number[] {
  return (start, stop, step = 1) => {
    if (stop === undefined) {
      stop = start;
      start = 0;
    }
    if (step === 0) throw new Error("range() step must not be zero");
    const length = Math.max(0, Math.ceil((stop - start) / step));
    if (!Number.isFinite(length) || length > maxLength) {
      throw new TemplateLimitError(`range() of ${length} numbers is over the sandbox's ${maxLength}`);
    }
    const numbers: number[] = [];
    for (let i = 0; i < length; i++) numbers.push(start + i * step);
    return numbers;
  };
}

let installed = false;

/**
 * Installs every guard below in this worker's realm, once: the worker owns its copy of the
 * interpreter and of the built-ins, so nothing outside the sandbox sees them.
 */
export function installRenderGuards(limits: SandboxLimits): void {
  if (installed) return;
  installed = true;
  boundRangeGlobal(limits.maxRangeLength);
  boundAllocations(limits.maxStringChars);
  checkEverySize(limits);
}

function stringTooLong(length: number, max: number): TemplateLimitError {
  return new TemplateLimitError(`a string of ${length} characters is over the sandbox's ${max}`);
}

/**
 * Puts boundedRange in place of the interpreter's own `range` global (which pushes as many
 * numbers as asked). The library sets its globals through Environment.set on every render
 * and allows no redefinition, so the swap happens there.
 */
function boundRangeGlobal(maxLength: number): void {
  const proto = Environment.prototype as unknown as { set: (name: string, value: unknown) => unknown };
  const range = boundedRange(maxLength);
  const set = proto.set;
  proto.set = function boundedSet(this: unknown, name: string, value: unknown): unknown {
    return set.call(this, name, name === "range" && typeof value === "function" ? range : value);
  };
}

/**
 * Bounds the built-ins through which one step of the interpreter can make a large string from a
 * small input: `repeat` (the indent filter, tojson's indent), padding, and `join` (the join
 * filter, a block's output). Checked before allocating: a single allocation past the worker's
 * heap aborts the whole process (V8 gives Node no chance to end just the worker), while growth in
 * small steps is ended by the worker's heap limit.
 */
function boundAllocations(max: number): void {
  const repeat = String.prototype.repeat;
  String.prototype.repeat = function boundedRepeat(this: string, count: number): string {
    if (this.length * count > max) throw stringTooLong(this.length * count, max);
    return repeat.call(this, count);
  };
  const padStart = String.prototype.padStart;
  const padEnd = String.prototype.padEnd;
  String.prototype.padStart = function boundedPadStart(this: string, length: number, fill?: string): string {
    if (length > max) throw stringTooLong(length, max);
    return padStart.call(this, length, fill);
  };
  String.prototype.padEnd = function boundedPadEnd(this: string, length: number, fill?: string): string {
    if (length > max) throw stringTooLong(length, max);
    return padEnd.call(this, length, fill);
  };
  const join = Array.prototype.join;
  Array.prototype.join = function boundedJoin(this: unknown[], separator?: string): string {
    let length = Math.max(0, this.length - 1) * (separator ?? ",").length;
    for (const item of this) {
      length += typeof item === "string" ? item.length : 0;
      if (length > max) throw stringTooLong(length, max);
    }
    return join.call(this, separator);
  };
}

/** Checks every value the interpreter evaluates: a string or list past the limits ends the render. */
function checkEverySize(limits: SandboxLimits): void {
  const proto = Interpreter.prototype as unknown as { evaluate: (...args: unknown[]) => unknown };
  const evaluate = proto.evaluate;
  proto.evaluate = function guardedEvaluate(this: unknown, ...args: unknown[]): unknown {
    const result = evaluate.apply(this, args) as { readonly value?: unknown } | undefined;
    const value = result?.value;
    if (typeof value === "string" && value.length > limits.maxStringChars) throw stringTooLong(value.length, limits.maxStringChars);
    if (Array.isArray(value) && value.length > limits.maxRangeLength) {
      throw new TemplateLimitError(`a list of ${value.length} items is over the sandbox's ${limits.maxRangeLength}`);
    }
    return result;
  };
}
