/**
 * Build manifests: what a build output (the compiled server in `dist/server/`, the web app in
 * `web/dist/`) was made from, so that `serve` can tell, without a compiler, whether its sources
 * changed since.
 *
 * A manifest stamps each input file (size, mtime and a SHA-256 of its content) and names folders
 * whose every file counts as an input (`modules/`: a module added there must be built). An input
 * is unchanged when its size and mtime match (a stat, cheap enough for 1,000 files at every
 * start); when they do not (a fresh clone, a copy into an image) its content hash decides, so a
 * checkout that only touched timestamps does not count as a change.
 *
 * No dependencies beyond node: — this module is bundled into the compiled server.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const MANIFEST_VERSION = 1;

export interface InputStamp {
  readonly size: number;
  readonly mtimeMs: number;
  readonly sha256: string;
}

export interface BuildManifest {
  readonly version: typeof MANIFEST_VERSION;
  /** ISO time of the build (for people; freshness never compares it). */
  readonly builtAt: string;
  /** Input files, relative to the package root with `/` separators. */
  readonly inputs: Readonly<Record<string, InputStamp>>;
  /** Folders (relative to the package root) whose every file is an input. */
  readonly folders: readonly string[];
  /** Output files, relative to the folder that holds the manifest. */
  readonly outputs: readonly string[];
}

/** Stamps `files` and every file under `folders` (all relative to `root`). */
export function stampInputs(root: string, files: Iterable<string>, folders: readonly string[] = []): Record<string, InputStamp> {
  const inputs: Record<string, InputStamp> = {};
  const all = new Set<string>([...files].map(toPosix));
  for (const folder of folders) for (const file of walk(root, folder)) all.add(file);
  for (const file of [...all].sort()) {
    const path = join(root, file);
    const stat = statSync(path);
    inputs[file] = { size: stat.size, mtimeMs: stat.mtimeMs, sha256: hashFile(path) };
  }
  return inputs;
}

export function readManifest(path: string): BuildManifest | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as BuildManifest;
    return manifest.version === MANIFEST_VERSION && typeof manifest.inputs === 'object' ? manifest : undefined;
  } catch {
    return undefined;
  }
}

/** Written last, atomically: a manifest names outputs that are all in place. */
export function writeManifest(path: string, manifest: BuildManifest): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(manifest, null, 1)}\n`);
  renameSync(temp, path);
}

/**
 * What changed since the manifest was written (`runtime/server.ts (changed)`): inputs changed or
 * removed, files added to its folders. Empty when the output is current. Stops at `limit` changes.
 */
export function changedInputs(root: string, manifest: BuildManifest, limit = Number.POSITIVE_INFINITY): string[] {
  const changes: string[] = [];
  for (const [file, stamp] of Object.entries(manifest.inputs)) {
    if (changes.length >= limit) return changes;
    const path = join(root, file);
    let stat;
    try {
      stat = statSync(path);
    } catch {
      changes.push(`${file} (removed)`);
      continue;
    }
    if (stat.size === stamp.size && stat.mtimeMs === stamp.mtimeMs) continue;
    if (stat.size !== stamp.size || hashFile(path) !== stamp.sha256) changes.push(`${file} (changed)`);
  }
  for (const folder of manifest.folders) {
    for (const file of walk(root, folder)) {
      if (changes.length >= limit) return changes;
      if (!(file in manifest.inputs)) changes.push(`${file} (added)`);
    }
  }
  return changes;
}

/** Every file under `folder` (relative to `root`), `/`-separated and relative to `root`. */
function* walk(root: string, folder: string): Generator<string> {
  const dir = join(root, folder);
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(root, relative(root, path));
    else if (entry.isFile()) yield toPosix(relative(root, path));
  }
}

function hashFile(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

function toPosix(path: string): string {
  return path.split(sep).join('/');
}
