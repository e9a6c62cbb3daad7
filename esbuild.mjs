// Bundles the extension host, the engine host process, the CLI, the tooling and the webview. node-llama-cpp stays external: it
// is ESM-only with native binaries and is loaded with a real dynamic import at runtime.
import * as esbuild from "esbuild";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";

const watch = process.argv.includes("--watch");
const production = process.argv.includes("--production");

const nodeTargets = [
  // The extension: a thin activation bundle, and the features it loads on first use (activation/lazy-features.ts).
  { entry: "src/extension/extension.ts", out: "out/extension.js" },
  { entry: "src/extension/features.ts", out: "out/extension-features.js" },
  { entry: "src/extension/cli/main.ts", out: "out/cli.js", banner: "#!/usr/bin/env node" },
  // The engine host process (one per loaded model): the extension and the CLI fork it.
  { entry: "src/extension/engine-host/main.ts", out: "out/engine-host.js" },
  // The chat template sandbox's worker thread (core/template-sandbox/): every process that
  // renders a model's template (the extension host, the CLI) starts it from next to its bundle.
  { entry: "src/extension/core/template-sandbox/template-worker.ts", out: "out/template-worker.js" },
  // Development tooling (src/tools/, never in the VSIX): `npm start`'s launcher, and the CLI's
  // development commands (build-llama, test-flash-attn, bench --peers), loaded by out/cli.js.
  { entry: "src/tools/launcher/main.ts", out: "out/launcher.js" },
  { entry: "src/tools/cli/main.ts", out: "out/tools.js" },
].filter((t) => existsSync(t.entry));

const builds = nodeTargets.map((t) => ({
  entryPoints: [t.entry],
  outfile: t.out,
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  sourcemap: !production,
  minify: production,
  external: ["vscode", "node-llama-cpp", "@node-llama-cpp/*", "*.node"],
  logLevel: "warning",
  ...(t.banner ? { banner: { js: t.banner } } : {}),
}));

if (existsSync("src/webview/main.ts")) {
  builds.push({
    entryPoints: ["src/webview/main.ts"],
    outfile: "media/dist/webview.js",
    bundle: true,
    platform: "browser",
    format: "iife",
    target: "es2022",
    sourcemap: !production,
    minify: production,
    loader: { ".ttf": "file" },
    logLevel: "warning",
  });
}

// Codicons are served to the webview from media/dist (localResourceRoots is media/ only).
if (existsSync("node_modules/@vscode/codicons/dist/codicon.css")) {
  mkdirSync("media/dist/codicons", { recursive: true });
  for (const file of ["codicon.css", "codicon.ttf"]) {
    copyFileSync(`node_modules/@vscode/codicons/dist/${file}`, `media/dist/codicons/${file}`);
  }
}

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
