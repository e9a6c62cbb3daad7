// `npm run check:vsix [-- [--expect-coreml-addon] [--expect-our-build] FILE.vsix ...]`: checks each VSIX
// (check-vsix.ts) against the target its manifest names; without files, every
// `stateful-chat-<target>.vsix` in the repository (what `npm run package:all` wrote).
// --expect-coreml-addon: darwin VSIXs must carry the Core ML addon (the release workflow's
// macOS job). --for-this-machine: the VSIXs are installed only here (npm start, the e2e
// suite), so they may carry our native llama.cpp build. --expect-our-build: each VSIX must carry
// our portable build (a release job that built it on the target's platform). Exits 1 when any
// check fails.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { checkVsix } from "./check-vsix";
import { isVsixTarget, VSIX_TARGETS } from "./targets";
import { readVsix } from "./vsix-reader";

const repo = resolve(import.meta.dirname, "..", "..", "..");

/** The command's options, one source for parsing them and for the usage error. */
const FLAG_OPTIONS = { "--expect-coreml-addon": "expectAddon", "--for-this-machine": "forThisMachine", "--expect-our-build": "expectOurBuild" } as const;
type CheckFlags = Readonly<Record<(typeof FLAG_OPTIONS)[keyof typeof FLAG_OPTIONS], boolean>>;

async function checkFile(path: string, lockedVersion: string, flags: CheckFlags): Promise<boolean> {
  const entries = await readVsix(path);
  const manifest = entries.find((e) => e.name === "extension.vsixmanifest")?.text ?? "";
  const target = /TargetPlatform="([^"]+)"/.exec(manifest)?.[1] ?? "";
  if (!isVsixTarget(target)) {
    console.log(`FAIL ${path}: no known TargetPlatform in its manifest (${target || "none"})`);
    return false;
  }
  const bytes = statSync(path).size;
  const report = checkVsix({ target, entries, bytes, lockedVersion, expectCoremlAddon: flags.expectAddon && target.startsWith("darwin-"), forThisMachine: flags.forThisMachine, expectOurBuild: flags.expectOurBuild });
  const ours = report.ourBuild.length > 0 ? `, our llama.cpp build ${report.ourBuild.join("; ")}` : ", no llama.cpp build of ours (the prebuilt serves)";
  const summary = `${target}, ${(bytes / 1e6).toFixed(1)} MB, ${entries.length} files, ${report.binaries.length} native binaries${ours}`;
  if (report.problems.length === 0) {
    console.log(`ok   ${path} (${summary})`);
    return true;
  }
  console.log(`FAIL ${path} (${summary}):\n  ${report.problems.join("\n  ")}`);
  return false;
}

async function main(): Promise<void> {
  const lock = JSON.parse(readFileSync(join(repo, "package-lock.json"), "utf8")) as { packages: Record<string, { version?: string }> };
  const lockedVersion = lock.packages["node_modules/node-llama-cpp"]?.version ?? "";
  const args = process.argv.slice(2);
  const options = Object.keys(FLAG_OPTIONS);
  const unknown = args.filter((arg) => arg.startsWith("--") && !options.includes(arg));
  if (unknown.length > 0) throw new Error(`unknown option ${unknown.join(", ")}: check:vsix takes ${options.join(", ")} and VSIX files`);
  const flags = Object.fromEntries(Object.entries(FLAG_OPTIONS).map(([option, flag]) => [flag, args.includes(option)])) as CheckFlags;
  const named = args.filter((arg) => !arg.startsWith("--")).map((file) => resolve(file));
  const files = named.length > 0 ? named : VSIX_TARGETS.map((t) => join(repo, `stateful-chat-${t}.vsix`)).filter((f) => existsSync(f));
  if (files.length === 0) throw new Error("no VSIX to check: run npm run package:all, or name the files");
  let passed = true;
  for (const file of files) passed = (await checkFile(file, lockedVersion, flags)) && passed;
  if (!passed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
