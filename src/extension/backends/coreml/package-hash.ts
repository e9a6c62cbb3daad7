// The identity of a model package for the compile cache. A content hash is the only safe
// key (a package re-converted in place must not load a stale compile), but hashing reads
// every byte: gigabytes for an fp16 1.5B model. So the hash is remembered per package
// under a cheap fingerprint (each file's relative path, size and mtime): an unchanged
// package is recognised from `stat` alone, and a new or changed one is hashed by
// streaming (fs.readFile refuses files over 2 GiB).
import { createHash } from "node:crypto";
import { createReadStream, promises as fs } from "node:fs";
import * as path from "node:path";

interface PackageFile {
  readonly relative: string;
  readonly size: number;
  readonly mtimeMs: number;
}

async function listFiles(root: string, folder = ""): Promise<PackageFile[]> {
  const entries = await fs.readdir(path.join(root, folder), { withFileTypes: true });
  const files: PackageFile[] = [];
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const relative = path.join(folder, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(root, relative)));
    else if (entry.isFile()) {
      const stat = await fs.stat(path.join(root, relative));
      files.push({ relative: relative.split(path.sep).join("/"), size: stat.size, mtimeMs: stat.mtimeMs });
    }
  }
  return files;
}

/** Cheap: a hash of every file's path, size and mtime, from `stat` only. */
async function fingerprintPackage(packagePath: string): Promise<string> {
  const hash = createHash("sha256");
  for (const file of await listFiles(packagePath)) hash.update(`${file.relative}\0${file.size}\0${file.mtimeMs}\0`);
  return hash.digest("hex");
}

async function streamInto(hash: ReturnType<typeof createHash>, file: string): Promise<void> {
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
}

/** sha256 over every file's relative path and bytes, in a stable order; streamed, any size. */
export async function hashModelPackage(packagePath: string): Promise<string> {
  const hash = createHash("sha256");
  for (const file of await listFiles(packagePath)) {
    hash.update(file.relative);
    hash.update("\0");
    await streamInto(hash, path.join(packagePath, file.relative));
    hash.update("\0");
  }
  return hash.digest("hex");
}

type Remembered = Record<string, { readonly fingerprint: string; readonly contentHash: string }>;

async function readRemembered(file: string): Promise<Remembered> {
  try {
    const parsed = JSON.parse(await fs.readFile(file, "utf8")) as unknown;
    return parsed && typeof parsed === "object" ? (parsed as Remembered) : {};
  } catch {
    return {};
  }
}

/**
 * The package's content hash, read from `memoryFile` when its fingerprint is unchanged,
 * else streamed (and then remembered). `onHashing` is called only when bytes are read.
 */
export async function packageContentHash(
  packagePath: string,
  memoryFile: string,
  onHashing?: () => void,
): Promise<{ readonly contentHash: string; readonly remembered: boolean }> {
  const key = path.resolve(packagePath);
  const fingerprint = await fingerprintPackage(key);
  const memory = await readRemembered(memoryFile);
  const known = memory[key];
  if (known && known.fingerprint === fingerprint) return { contentHash: known.contentHash, remembered: true };
  onHashing?.();
  const contentHash = await hashModelPackage(key);
  // Re-read before writing: another window may have remembered a different package.
  const latest = await readRemembered(memoryFile);
  latest[key] = { fingerprint, contentHash };
  await fs.mkdir(path.dirname(memoryFile), { recursive: true });
  const temporary = `${memoryFile}.tmp-${process.pid}-${Date.now()}`;
  await fs.writeFile(temporary, JSON.stringify(latest, null, 1));
  await fs.rename(temporary, memoryFile);
  return { contentHash, remembered: false };
}
