// Model discovery on fixture folder layouts (Ollama, LM Studio, the HF hub cache, llama.cpp's
// cache) built in a temp dir, and the GGUF header reader on fixture GGUFs and the default model.
import assert from "node:assert/strict";
import { chmodSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { defaultModelPath } from "../../src/extension/models/default-model";
import { type DiscoveredModel, discoverLocalModels, modelFileFilter } from "../../src/extension/models/discovery";
import {
  GGUF_TYPE, GgufHeaderError, ggufFileTypeName, ggufMetadataOf, ggufStringMetadata, readGgufMetadata, readGgufSummary,
} from "../../src/extension/models/gguf-header";

// ---- GGUF fixtures ---------------------------------------------------------------------------

type Value = { type: number; bytes: Buffer };
const u64b = (n: number | bigint) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); return b; };
const u32b = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
const strBytes = (s: string) => Buffer.concat([u64b(Buffer.byteLength(s)), Buffer.from(s)]);
const str = (s: string): Value => ({ type: GGUF_TYPE.STRING, bytes: strBytes(s) });
const u32 = (n: number): Value => ({ type: GGUF_TYPE.UINT32, bytes: u32b(n) });
const u64 = (n: number | bigint): Value => ({ type: GGUF_TYPE.UINT64, bytes: u64b(n) });
const i64 = (n: bigint): Value => { const b = Buffer.alloc(8); b.writeBigInt64LE(n); return { type: GGUF_TYPE.INT64, bytes: b }; };
const i8 = (n: number): Value => { const b = Buffer.alloc(1); b.writeInt8(n); return { type: GGUF_TYPE.INT8, bytes: b }; };
const u16 = (n: number): Value => { const b = Buffer.alloc(2); b.writeUInt16LE(n); return { type: GGUF_TYPE.UINT16, bytes: b }; };
const f32 = (n: number): Value => { const b = Buffer.alloc(4); b.writeFloatLE(n); return { type: GGUF_TYPE.FLOAT32, bytes: b }; };
const f64 = (n: number): Value => { const b = Buffer.alloc(8); b.writeDoubleLE(n); return { type: GGUF_TYPE.FLOAT64, bytes: b }; };
const bool = (v: boolean): Value => ({ type: GGUF_TYPE.BOOL, bytes: Buffer.from([v ? 1 : 0]) });
const strArray = (items: readonly string[]): Value => ({ type: GGUF_TYPE.ARRAY, bytes: Buffer.concat([u32b(GGUF_TYPE.STRING), u64b(items.length), ...items.map(strBytes)]) });
const f32Array = (n: number): Value => ({ type: GGUF_TYPE.ARRAY, bytes: Buffer.concat([u32b(GGUF_TYPE.FLOAT32), u64b(n), Buffer.alloc(4 * n)]) });
const nestedArray = (): Value => ({
  type: GGUF_TYPE.ARRAY,
  bytes: Buffer.concat([u32b(GGUF_TYPE.ARRAY), u64b(2), u32b(GGUF_TYPE.INT32), u64b(3), Buffer.alloc(12), u32b(GGUF_TYPE.STRING), u64b(1), strBytes("x")]),
});

function gguf(entries: ReadonlyArray<[string, Value]>, tensorBytes = 64): Buffer {
  const head = Buffer.concat([Buffer.from("GGUF", "latin1"), u32b(3), u64b(1), u64b(entries.length)]);
  return Buffer.concat([head, ...entries.flatMap(([key, value]) => [strBytes(key), u32b(value.type), value.bytes]), Buffer.alloc(tensorBytes)]);
}

const TEMPLATE = "{% for message in messages %}<|im_start|>{{ message.role }}\n{{ message.content }}<|im_end|>\n{% endfor %}".repeat(40);

/** A small model GGUF: the vocabulary and scores arrays before the chat template, as in real files. */
function modelGguf(name: string, vocab = 50): Buffer {
  return gguf([
    ["general.architecture", str("qwen2")],
    ["general.type", str("model")],
    ["general.name", str(name)],
    ["qwen2.context_length", u32(32768)],
    ["general.file_type", u32(15)],
    ["tokenizer.ggml.tokens", strArray(Array.from({ length: vocab }, (_, i) => `tok${i}`))],
    ["tokenizer.ggml.scores", f32Array(vocab)],
    ["tokenizer.chat_template", str(TEMPLATE)],
  ]);
}

const temp: string[] = [];
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  temp.push(dir);
  return dir;
}
after(async () => {
  for (const dir of temp) {
    try { chmodSync(dir, 0o755); } catch { /* gone */ }
    await rm(dir, { recursive: true, force: true });
  }
});

async function put(path: string, content: string | Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
}

async function link(target: string, path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await symlink(target, path);
}

const names = (models: readonly DiscoveredModel[]) => models.map((m) => `${m.source} ${m.name}`);

// ---- GGUF header -----------------------------------------------------------------------------

describe("GGUF header reader", () => {
  it("reads numbers, booleans and strings, skipping arrays (nested too) before the template", async () => {
    const bytes = gguf([
      ["general.architecture", str("llama")],
      ["general.name", str("Fixture")],
      ["llama.context_length", u64(131072)],
      ["llama.rope.freq_base", f32(500000)],
      ["llama.eps", f64(1e-5)],
      ["general.file_type", u32(7)],
      ["x.i8", i8(-3)],
      ["x.u16", u16(65535)],
      ["x.big", i64(-(2n ** 60n))],
      ["tokenizer.ggml.add_bos_token", bool(true)],
      ["tokenizer.ggml.tokens", strArray(["<s>", "</s>", "a"])],
      ["tokenizer.ggml.scores", f32Array(3)],
      ["x.nested", nestedArray()],
      ["tokenizer.chat_template", str(TEMPLATE)],
      ["tokenizer.chat_template.tool_use", str("{{ tools }}")],
    ]);
    const dir = await tempDir("sc-gguf-");
    await put(join(dir, "m.gguf"), bytes);
    const meta = await readGgufMetadata(join(dir, "m.gguf"));
    assert.equal(meta.version, 3);
    assert.equal(meta.tensorCount, 1);
    assert.equal(meta.metadata.get("llama.context_length"), 131072);
    assert.equal(meta.metadata.get("llama.rope.freq_base"), 500000);
    assert.equal(meta.metadata.get("llama.eps"), 1e-5);
    assert.equal(meta.metadata.get("x.i8"), -3);
    assert.equal(meta.metadata.get("x.u16"), 65535);
    assert.equal(meta.metadata.get("x.big"), -(2n ** 60n));
    assert.equal(meta.metadata.get("tokenizer.ggml.add_bos_token"), true);
    assert.deepEqual(meta.metadata.get("tokenizer.ggml.tokens"), { arrayOf: GGUF_TYPE.STRING, length: 3 });
    assert.deepEqual(meta.metadata.get("x.nested"), { arrayOf: GGUF_TYPE.ARRAY, length: 2 });
    assert.equal(meta.metadataEnd, bytes.length - 64);
    assert.deepEqual(await readGgufSummary(join(dir, "m.gguf")), {
      architecture: "llama",
      name: "Fixture",
      contextLength: 131072,
      chatTemplate: TEMPLATE,
      namedChatTemplates: { tool_use: "{{ tools }}" },
      fileType: 7,
    });
    assert.equal(ggufFileTypeName(7), "Q8_0");
    assert.equal(ggufFileTypeName(15), "Q4_K_M");
  });

  it("reads a template behind a vocabulary larger than its read window, and caps the bytes it reads", async () => {
    const dir = await tempDir("sc-gguf-");
    const path = join(dir, "big-vocab.gguf");
    await put(path, modelGguf("Big vocab", 150_000)); // ~2.5 MB of token strings, then 600 KB of scores
    const summary = await readGgufSummary(path);
    assert.equal(summary.chatTemplate, TEMPLATE);
    assert.equal(summary.contextLength, 32768);
    await assert.rejects(readGgufSummary(path, { maxBytes: 512 * 1024 }), (e: Error) => e instanceof GgufHeaderError && /runs past the first/.test(e.message));
  });

  it("refuses what is not a GGUF, a header cut short, and a file ending inside its metadata", async () => {
    const dir = await tempDir("sc-gguf-");
    const whole = modelGguf("Cut", 2000);
    await put(join(dir, "zip.gguf"), "PK\u0003\u0004 not a gguf at all, a zip");
    await put(join(dir, "short.gguf"), whole.subarray(0, 10));
    await put(join(dir, "cut.gguf"), whole.subarray(0, 5000));
    await assert.rejects(readGgufMetadata(join(dir, "zip.gguf")), /no GGUF magic/);
    await assert.rejects(readGgufMetadata(join(dir, "short.gguf")), /shorter than a GGUF header/);
    await assert.rejects(readGgufMetadata(join(dir, "cut.gguf")), /truncated GGUF/);
    // From a buffer (the first bytes of a file), what came before the cut is still read.
    const partial = ggufMetadataOf(whole.subarray(0, 5000));
    assert.equal(partial.complete, false);
    assert.equal(partial.metadata.get("qwen2.context_length"), 32768);
    assert.equal(ggufStringMetadata(whole.subarray(0, 5000)).get("general.name"), "Cut");
  });

  it("summarizes the real default model when it is present", async (t) => {
    const path = defaultModelPath(join(__dirname, "..", ".."));
    if (!existsSync(path)) return t.skip(`default model not fetched (${path}); run node out/cli.js fetch-model`);
    const summary = await readGgufSummary(path);
    assert.equal(summary.architecture, "llama");
    assert.equal(summary.contextLength, 8192);
    assert.equal(ggufFileTypeName(summary.fileType), "Q4_1");
    assert.match(summary.chatTemplate ?? "", /<\|im_start\|>/); // behind 49k tokens and 49k merges
  });
});

// ---- discovery -------------------------------------------------------------------------------

describe("model discovery", () => {
  it("file names: partial downloads, projectors and later split parts are not models", () => {
    const none = new Set<string>();
    for (const name of ["m.gguf.partial", "m.gguf.incomplete", "m.gguf.download", "m.gguf.part", "m.gguf.part1of2", "m.partial", "mmproj-model-f16.gguf", "Qwen2-VL-mmproj.gguf", "m-00002-of-00003.gguf", ".m.gguf"]) {
      assert.equal(modelFileFilter(name, none), "skip", name);
    }
    assert.equal(modelFileFilter("Model-Q4_K_M.GGUF", none), "model");
    assert.deepEqual(modelFileFilter("m-00001-of-00003.gguf", new Set(["m-00003-of-00003.gguf"])), {
      parts: ["m-00002-of-00003.gguf", "m-00003-of-00003.gguf"],
      missing: ["m-00002-of-00003.gguf"],
    });
  });

  it("Ollama: a manifest's model layer resolved to its blob; other layers, bad manifests and non-GGUF blobs skipped", async () => {
    const home = await tempDir("sc-home-");
    const models = join(home, ".ollama", "models");
    const blob = (hex: string) => join(models, "blobs", `sha256-${hex}`);
    const digest = (c: string) => c.repeat(64);
    const manifest = (modelDigest: string | undefined) => JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.docker.distribution.manifest.v2+json",
      config: { mediaType: "application/vnd.docker.container.image.v1+json", digest: `sha256:${digest("c")}`, size: 10 },
      layers: [
        ...(modelDigest ? [{ mediaType: "application/vnd.ollama.image.model", digest: `sha256:${modelDigest}`, size: 100 }] : []),
        { mediaType: "application/vnd.ollama.image.license", digest: `sha256:${digest("d")}`, size: 10 },
        { mediaType: "application/vnd.ollama.image.template", digest: `sha256:${digest("e")}`, size: 10 },
        { mediaType: "application/vnd.ollama.image.params", digest: `sha256:${digest("f")}`, size: 10 },
      ],
    });
    const lib = join(models, "manifests", "registry.ollama.ai", "library");
    await put(blob(digest("a")), modelGguf("Qwen2.5 7B"));
    await put(blob(digest("b")), modelGguf("Coder"));
    await put(blob(digest("d")), "Apache License 2.0 ...");
    await put(blob(digest("e")), "{{ .Prompt }}");
    await put(blob(digest("f")), '{"stop":["<|im_end|>"]}');
    await put(blob(digest("9")), "this model layer is not a GGUF");
    await put(join(lib, "qwen2.5", "7b"), manifest(digest("a")));
    await put(join(lib, "qwen2.5", "latest"), manifest(digest("a"))); // same blob: listed once
    await put(join(models, "manifests", "registry.ollama.ai", "alice", "coder", "q4"), manifest(digest("b")));
    await put(join(models, "manifests", "hf.co", "bartowski", "Qwen-GGUF", "Q4_K_M"), manifest(digest("b").replace(/b/g, "1")));
    await put(join(lib, "broken", "latest"), "{ not json");
    await put(join(lib, "remote", "cloud"), manifest(undefined));
    await put(join(lib, "notgguf", "latest"), manifest(digest("9")));

    const { models: found, problems } = await discoverLocalModels({ home, env: {} });
    assert.deepEqual(names(found), ["ollama alice/coder:q4", "ollama qwen2.5:7b"]);
    const qwen = found[1]!;
    assert.equal(qwen.path, blob(digest("a")));
    assert.equal(qwen.sizeBytes, modelGguf("Qwen2.5 7B").length);
    assert.equal(qwen.summary.name, "Qwen2.5 7B");
    assert.equal(qwen.summary.contextLength, 32768);
    assert.equal(qwen.summary.chatTemplate, TEMPLATE);
    assert.equal(problems.length, 4, problems.join("\n"));
    assert.ok(problems.some((p) => /broken:latest.*bad JSON/.test(p)));
    assert.ok(problems.some((p) => /remote:cloud has no GGUF model layer/.test(p)));
    assert.ok(problems.some((p) => /notgguf:latest.*no GGUF magic/.test(p)));
    assert.ok(problems.some((p) => /hf\.co\/bartowski\/Qwen-GGUF:Q4_K_M.*missing/.test(p)));
    assert.ok(problems.every((p) => p.startsWith("Ollama: ")));
  });

  it("Ollama: OLLAMA_MODELS replaces ~/.ollama/models", async () => {
    const home = await tempDir("sc-home-");
    const custom = await tempDir("sc-ollama-");
    const hex = "ab".repeat(32);
    const layers = (h: string) => JSON.stringify({ layers: [{ mediaType: "application/vnd.ollama.image.model", digest: `sha256:${h}` }] });
    for (const [root, name] of [[join(home, ".ollama", "models"), "home"], [custom, "custom"]] as const) {
      await put(join(root, "blobs", `sha256-${hex}`), modelGguf(name));
      await put(join(root, "manifests", "registry.ollama.ai", "library", name, "latest"), layers(hex));
    }
    assert.deepEqual(names((await discoverLocalModels({ home, env: {} })).models), ["ollama home:latest"]);
    assert.deepEqual(names((await discoverLocalModels({ home, env: { OLLAMA_MODELS: custom } })).models), ["ollama custom:latest"]);
  });

  it("LM Studio: publisher/repo files, symlinks, split models; partial downloads, projectors and loops skipped", async () => {
    const home = await tempDir("sc-home-");
    const elsewhere = await tempDir("sc-elsewhere-");
    const root = join(home, ".lmstudio", "models");
    const repo = join(root, "lmstudio-community", "Qwen2.5-Coder-GGUF");
    await put(join(repo, "Qwen2.5-Coder-Q4_K_M.gguf"), modelGguf("Qwen2.5 Coder"));
    await put(join(repo, "mmproj-Qwen2.5-f16.gguf"), modelGguf("projector"));
    await put(join(repo, "Qwen2.5-Coder-Q8_0.gguf.part"), modelGguf("in progress").subarray(0, 100));
    await put(join(repo, "Qwen2.5-Coder-Q6_K.gguf.partial"), "x");
    await put(join(repo, "Qwen2.5-Coder-Q5_K_M.gguf.download"), "x");
    await put(join(repo, "Qwen2.5-Coder-Q3_K_M.incomplete"), "x");
    await put(join(repo, "Qwen2.5-Coder-Q2_K.gguf"), ""); // zero-size: an unfinished download
    await put(join(repo, "Qwen2.5-Coder-IQ4.gguf"), modelGguf("cut short", 3000).subarray(0, 4000)); // header truncated
    const split = join(root, "bartowski", "Big-GGUF");
    const part1 = modelGguf("Big");
    await put(join(split, "Big-Q4-00001-of-00003.gguf"), part1);
    await put(join(split, "Big-Q4-00002-of-00003.gguf"), Buffer.alloc(1000));
    await put(join(split, "Big-Q4-00003-of-00003.gguf"), Buffer.alloc(500));
    await put(join(split, "Half-00001-of-00002.gguf"), modelGguf("Half")); // part 2 missing
    await put(join(elsewhere, "mine.gguf"), modelGguf("Mine"));
    await link(join(elsewhere, "mine.gguf"), join(root, "me", "linked", "mine.gguf"));
    await link(elsewhere, join(root, "me", "folder-link")); // a linked folder: its file is the same real file
    await link(root, join(root, "me", "loop")); // a symlink loop
    await put(join(home, ".cache", "lm-studio", "models", "TheBloke", "Old-GGUF", "old.Q4_0.gguf"), modelGguf("Old"));

    const { models, problems } = await discoverLocalModels({ home, env: {} });
    assert.deepEqual(names(models), [
      "lm-studio TheBloke/Old-GGUF/old.Q4_0.gguf",
      "lm-studio bartowski/Big-GGUF/Big-Q4-00001-of-00003.gguf",
      "lm-studio lmstudio-community/Qwen2.5-Coder-GGUF/Qwen2.5-Coder-Q4_K_M.gguf",
      "lm-studio me/folder-link/mine.gguf",
    ]);
    assert.equal(models[1]!.sizeBytes, part1.length + 1500);
    assert.equal(models[3]!.realPath, join(elsewhere, "mine.gguf"));
    assert.ok(problems.some((p) => /Half-00001-of-00002\.gguf is missing Half-00002-of-00002\.gguf/.test(p)), problems.join("\n"));
    assert.ok(problems.some((p) => /Q2_K\.gguf.*empty/.test(p)));
    assert.ok(problems.some((p) => /IQ4\.gguf.*truncated GGUF/.test(p)));
    assert.equal(problems.length, 3, problems.join("\n"));
  });

  it("LM Studio: the home named in ~/.lmstudio-home-pointer", async () => {
    const home = await tempDir("sc-home-");
    const lmHome = await tempDir("sc-lmhome-");
    await put(join(lmHome, "models", "pub", "repo", "m.gguf"), modelGguf("Pointed"));
    await put(join(home, ".lmstudio-home-pointer"), `${lmHome}\n`);
    assert.deepEqual(names((await discoverLocalModels({ home, env: {} })).models), ["lm-studio pub/repo/m.gguf"]);
  });

  it("Hugging Face cache: snapshot symlinks into blobs, revisions, HF_HUB_CACHE / HF_HOME, broken links reported", async () => {
    const home = await tempDir("sc-home-");
    const build = async (hub: string, tag: string) => {
      const repo = join(hub, `models--Qwen--${tag}-GGUF`);
      await put(join(repo, "blobs", "1111"), modelGguf(`${tag} q4`));
      await put(join(repo, "blobs", "2222"), modelGguf(`${tag} q8 old`));
      await put(join(repo, "blobs", "3333.incomplete"), "partial");
      await put(join(repo, "refs", "main"), "rev2222222222");
      await link("../../blobs/1111", join(repo, "snapshots", "rev2222222222", "qwen-q4_k_m.gguf"));
      await link("../../blobs/1111", join(repo, "snapshots", "rev1111111111", "qwen-q4_k_m.gguf")); // same blob in an older revision
      await link("../../../blobs/2222", join(repo, "snapshots", "rev1111111111", "q8", "qwen-q8_0.gguf"));
      await link("../../blobs/9999", join(repo, "snapshots", "rev2222222222", "gone.gguf")); // broken
      await put(join(repo, "snapshots", "rev2222222222", "README.md"), "# readme");
      await put(join(hub, "datasets--someone--data", "snapshots", "r", "d.gguf"), modelGguf("dataset"));
    };
    await build(join(home, ".cache", "huggingface", "hub"), "Default");
    const hfHome = await tempDir("sc-hfhome-");
    await build(join(hfHome, "hub"), "HfHome");
    const hubCache = await tempDir("sc-hubcache-");
    await build(hubCache, "HubCache");

    const byDefault = await discoverLocalModels({ home, env: {} });
    assert.deepEqual(names(byDefault.models), ["huggingface Qwen/Default-GGUF/q8/qwen-q8_0.gguf", "huggingface Qwen/Default-GGUF/qwen-q4_k_m.gguf"]);
    const q4 = byDefault.models[1]!;
    assert.equal(q4.path, join(home, ".cache", "huggingface", "hub", "models--Qwen--Default-GGUF", "snapshots", "rev2222222222", "qwen-q4_k_m.gguf"));
    assert.equal(q4.realPath, join(home, ".cache", "huggingface", "hub", "models--Qwen--Default-GGUF", "blobs", "1111"));
    assert.deepEqual(byDefault.problems.map((p) => p.replace(home, "~")), [
      "Hugging Face cache: broken symlink ~/.cache/huggingface/hub/models--Qwen--Default-GGUF/snapshots/rev2222222222/gone.gguf (ENOENT)",
    ]);
    assert.deepEqual(names((await discoverLocalModels({ home, env: { HF_HOME: hfHome } })).models).map((n) => n.split("/")[1]), ["HfHome-GGUF", "HfHome-GGUF"]);
    assert.deepEqual(names((await discoverLocalModels({ home, env: { HF_HOME: hfHome, HF_HUB_CACHE: hubCache } })).models).map((n) => n.split("/")[1]), ["HubCache-GGUF", "HubCache-GGUF"]);
    assert.deepEqual(names((await discoverLocalModels({ home, env: { XDG_CACHE_HOME: join(hfHome, "nothing") } })).models), []);
  });

  it("llama.cpp cache: LLAMA_CACHE or ~/.cache/llama.cpp, flat files beside their etag json", async () => {
    const home = await tempDir("sc-home-");
    const cache = await tempDir("sc-llamacache-");
    await put(join(home, ".cache", "llama.cpp", "ggml-org_gemma-3-1b-it-GGUF_gemma-3-1b-it-Q4_K_M.gguf"), modelGguf("gemma"));
    await put(join(home, ".cache", "llama.cpp", "ggml-org_gemma-3-1b-it-GGUF_gemma-3-1b-it-Q4_K_M.gguf.json"), "{}");
    await put(join(home, ".cache", "llama.cpp", "ggml-org_gemma-3-1b-it-GGUF_mmproj-model-f16.gguf"), modelGguf("projector"));
    await put(join(cache, "bartowski_Phi_phi-Q4.gguf"), modelGguf("phi"));
    await put(join(cache, "bartowski_Phi_phi-Q8.gguf.downloadInProgress"), "x");
    assert.deepEqual(names((await discoverLocalModels({ home, env: {} })).models), ["llama.cpp ggml-org_gemma-3-1b-it-GGUF_gemma-3-1b-it-Q4_K_M.gguf"]);
    assert.deepEqual(names((await discoverLocalModels({ home, env: { LLAMA_CACHE: cache } })).models), ["llama.cpp bartowski_Phi_phi-Q4.gguf"]);
    assert.deepEqual(names((await discoverLocalModels({ home, env: {}, platform: "darwin" })).models), []);
  });

  it("every store at once: sorted by store then name, one entry per real file, problems never thrown", async () => {
    const home = await tempDir("sc-home-");
    const hex = "cd".repeat(32);
    const ollama = join(home, ".ollama", "models");
    await put(join(ollama, "blobs", `sha256-${hex}`), modelGguf("shared"));
    await put(join(ollama, "manifests", "registry.ollama.ai", "library", "shared", "latest"), JSON.stringify({ layers: [{ mediaType: "application/vnd.ollama.image.model", digest: `sha256:${hex}` }] }));
    // LM Studio links the Ollama blob in under a readable name: one model, listed under Ollama.
    await link(join(ollama, "blobs", `sha256-${hex}`), join(home, ".lmstudio", "models", "me", "shared", "shared.gguf"));
    await put(join(home, ".lmstudio", "models", "me", "z", "z.gguf"), modelGguf("z"));
    await put(join(home, ".lmstudio", "models", "me", "a", "a.gguf"), modelGguf("a"));
    await put(join(home, ".cache", "huggingface", "hub", "models--o--r", "snapshots", "s", "r.gguf"), modelGguf("r"));
    await put(join(home, ".cache", "llama.cpp", "x.gguf"), modelGguf("x"));
    const first = await discoverLocalModels({ home, env: {} });
    assert.deepEqual(names(first.models), ["ollama shared:latest", "lm-studio me/a/a.gguf", "lm-studio me/z/z.gguf", "huggingface o/r/r.gguf", "llama.cpp x.gguf"]);
    assert.deepEqual(first.problems, []);
    assert.deepEqual(await discoverLocalModels({ home, env: {} }), first);
    // A home with nothing in it: nothing found, nothing to report.
    assert.deepEqual(await discoverLocalModels({ home: join(home, "no-such-home"), env: {} }), { models: [], problems: [] });
  });

  it("unreadable folders are reported, not thrown: no permission, a file where a folder is expected", async () => {
    const home = await tempDir("sc-home-");
    const locked = join(home, ".lmstudio", "models", "locked");
    await put(join(locked, "repo", "m.gguf"), modelGguf("locked"));
    await put(join(home, ".lmstudio", "models", "open", "repo", "m.gguf"), modelGguf("open"));
    await put(join(home, ".cache", "huggingface", "hub", "models--o--r", "snapshots"), "a file, not a folder");
    await put(join(home, ".ollama", "models", "manifests"), "a file, not a folder");
    chmodSync(locked, 0o000);
    let chmodBlocks = true;
    try {
      readdirSync(locked);
      chmodBlocks = false; // running as root (or with CAP_DAC_READ_SEARCH): mode 000 does not stop reads
    } catch {
      // EACCES, as for a normal user
    }
    try {
      const { models, problems } = await discoverLocalModels({ home, env: {} });
      assert.ok(names(models).includes("lm-studio open/repo/m.gguf"));
      assert.ok(problems.some((p) => p.startsWith("Hugging Face cache: cannot read") && p.includes("snapshots (ENOTDIR)")), problems.join("\n"));
      assert.ok(problems.some((p) => p.startsWith("Ollama: cannot read") && p.includes("manifests (ENOTDIR)")), problems.join("\n"));
      if (chmodBlocks) {
        assert.ok(problems.some((p) => p.startsWith("LM Studio: cannot read") && p.includes("locked (EACCES)")), problems.join("\n"));
        assert.ok(!names(models).includes("lm-studio locked/repo/m.gguf"));
      }
    } finally {
      chmodSync(locked, 0o755);
    }
  });
});

it("discovery and the GGUF reader are pure Node: no vscode, no peer-bench tooling", () => {
  const models = join(__dirname, "..", "..", "src", "extension", "models");
  const files = [join(models, "gguf-header.ts"), ...readdirSync(join(models, "discovery")).map((f) => join(models, "discovery", f))];
  assert.ok(files.length >= 6);
  for (const file of files) {
    const specifiers = [...readFileSync(file, "utf8").matchAll(/(?:import|export)[^;]*?from\s+["']([^"']+)["']/g)].map((m) => m[1]!);
    for (const specifier of specifiers) assert.ok(specifier.startsWith("node:") || /^\.\.?\//.test(specifier) && !specifier.includes("peer-bench") && !specifier.includes("shell"), `${file} imports ${specifier}`);
  }
});
