/**
 * Stage 4: write. The only code that changes the disk. Writes a file map into the output
 * folder, removes generated files that are no longer generated, leaves equal files alone, and
 * refuses to touch a folder holding files rmsgen did not write (they lack the banner).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { looksGenerated as isGeneratedText, type FileMap } from './emit/index.ts';
import { RmsgenError } from './errors.ts';

export interface OutputDiff {
  /** Generated files whose content differs. */
  readonly stale: readonly string[];
  /** Generated files not on disk yet. */
  readonly missing: readonly string[];
  /** Files on disk (with the banner) that are no longer generated. */
  readonly extra: readonly string[];
  readonly unchanged: number;
}

/** Every file under `dir`, as POSIX paths relative to it, sorted; none when `dir` does not exist. */
export function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  const walk = (current: string): void => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else found.push(relative(dir, path).split(sep).join('/'));
    }
  };
  walk(dir);
  return found.sort();
}

function looksGenerated(path: string): boolean {
  return isGeneratedText(readFileSync(path, 'utf8'));
}

/** Throws when `outDir` exists and holds anything rmsgen did not generate. */
function assertGeneratedFolder(outDir: string, shownAs: string): void {
  if (existsSync(outDir) && !statSync(outDir).isDirectory()) {
    throw new RmsgenError('write-refused', [
      { file: shownAs, code: 'output-not-a-folder', message: 'is a file, not a folder', fix: 'remove it or choose another --out' },
    ]);
  }
  const foreign = listFiles(outDir).filter((path) => !looksGenerated(join(outDir, path)));
  if (foreign.length > 0) {
    throw new RmsgenError('write-refused', [
      {
        file: shownAs,
        code: 'output-not-generated',
        message: `holds files rmsgen did not generate (${foreign.join(', ')}); refusing to write there`,
        fix: 'move them away, or choose another --out',
      },
    ]);
  }
}

/** Compares the file map with the output folder without changing anything. */
export function diffOutput(outDir: string, files: FileMap): OutputDiff {
  const onDisk = new Set(listFiles(outDir));
  const stale: string[] = [];
  const missing: string[] = [];
  let unchanged = 0;
  for (const [path, content] of files) {
    if (!onDisk.has(path)) missing.push(path);
    else if (readFileSync(join(outDir, path), 'utf8') !== content) stale.push(path);
    else unchanged++;
  }
  const extra = [...onDisk].filter((path) => !files.has(path) && looksGenerated(join(outDir, path)));
  return { stale, missing, extra, unchanged };
}

/** Brings the output folder in line with the file map. Returns what it changed. */
export function writeOutput(outDir: string, files: FileMap, shownAs = outDir): OutputDiff {
  assertGeneratedFolder(outDir, shownAs);
  const diff = diffOutput(outDir, files);
  for (const path of [...diff.missing, ...diff.stale]) {
    const target = join(outDir, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, files.get(path) as string);
  }
  for (const path of diff.extra) {
    unlinkSync(join(outDir, path));
    removeEmptyParents(outDir, dirname(join(outDir, path)));
  }
  return diff;
}

/** Removes the folders a removed file left empty, up to (not including) `root`; both compared as absolute paths (`./generated` and `generated/crm` are one tree). */
function removeEmptyParents(root: string, dir: string): void {
  const top = resolve(root);
  let current = resolve(dir);
  while (current.startsWith(`${top}${sep}`) && readdirSync(current).length === 0) {
    rmdirSync(current);
    current = dirname(current);
  }
}
