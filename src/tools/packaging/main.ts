// `npm run package [-- --target T ...] [--all] [--out DIR] [--no-build] [--fetch-only] [--coreml-addon DIR]`
//
// Without --target: this machine's VSIX as `stateful-chat.vsix` (what `npm run package` always
// made). With --target T (repeatable) or --all (`npm run package:all`): `stateful-chat-T.vsix`
// per target, in --out (default: the repository). --fetch-only resolves the targets' prebuilts
// (download + integrity check into .cache/packaging) and packages nothing: npm test runs it in
// the background ahead of packaging.
import { join, resolve } from "node:path";
import { runCommand } from "../launcher/run-command";
import { packageTarget, resolvePrebuilts } from "./package-target";
import { hostTarget, isVsixTarget, VSIX_TARGETS, type VsixTarget } from "./targets";

const repo = resolve(import.meta.dirname, "..", "..", "..");

interface Args {
  readonly targets: VsixTarget[];
  readonly out: string;
  readonly build: boolean;
  readonly fetchOnly: boolean;
  readonly coremlAddon: string | undefined;
}

function parseArgs(argv: readonly string[]): Args {
  const targets: VsixTarget[] = [];
  let out = repo;
  let build = true;
  let fetchOnly = false;
  let coremlAddon: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === "--target") {
      const target = value();
      if (!isVsixTarget(target)) throw new Error(`unknown target ${target}: one of ${VSIX_TARGETS.join(", ")}`);
      targets.push(target);
    } else if (arg === "--all") targets.push(...VSIX_TARGETS);
    else if (arg === "--out") out = resolve(value());
    else if (arg === "--no-build") build = false;
    else if (arg === "--fetch-only") fetchOnly = true;
    else if (arg === "--coreml-addon") coremlAddon = resolve(value());
    else throw new Error(`unknown argument ${arg}`);
  }
  return { targets: [...new Set(targets)], out, build, fetchOnly, coremlAddon };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const log = (line: string): void => console.log(line);
  const named = args.targets.length > 0;
  const targets = named ? args.targets : [hostTarget()];
  if (args.fetchOnly) {
    for (const target of targets) await resolvePrebuilts(repo, target, log);
    return;
  }
  if (args.build) await runCommand(process.execPath, ["esbuild.mjs", "--production"], { cwd: repo });
  const made = [];
  for (const target of targets) {
    const file = named ? `stateful-chat-${target}.vsix` : "stateful-chat.vsix";
    const coremlAddon = args.coremlAddon && target.startsWith("darwin-") ? args.coremlAddon : undefined;
    made.push(await packageTarget(repo, target, join(args.out, file), log, { coremlAddon }));
  }
  for (const vsix of made) console.log(`${vsix.target}\t${(vsix.bytes / 1e6).toFixed(1)} MB\t${vsix.path}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
