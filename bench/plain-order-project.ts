/**
 * A throw-away copy of this project whose `order` (the demo's sales module) has no rules and no
 * computed fields: `total` and each line's `amount` are plain money fields the request gives. The
 * bench creates the same orders on it and on the demo, side by side, for what rules and computed
 * fields cost a write.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runNode } from './processes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What `build` and `serve` need, with the demo modules. */
const COPIED = ['bin', 'generator', 'runtime', 'web', 'modules', 'package.json', 'tsconfig.json'];

export interface PlainOrderProject {
  readonly dir: string;
  remove(): void;
}

/** Copies the project, takes the rules and computed fields out of `order`, and builds it. */
export async function createPlainOrderProject(): Promise<PlainOrderProject> {
  const dir = mkdtempSync(join(tmpdir(), 'rmsgen-plain-order-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    for (const entry of COPIED) cpSync(join(ROOT, entry), join(dir, entry), { recursive: true, preserveTimestamps: true });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const file = join(dir, 'modules', 'sales', 'module.ts');
    writeFileSync(file, withoutLogic(readFileSync(file, 'utf8')));
    const build = await runNode(['bin/rmsgen.js', 'build'], { cwd: dir });
    if (build.code !== 0) throw new Error(`rmsgen build of the order without rules and computed fields failed:\n${build.output}`);
    return { dir, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** The sales module's source with each `computed:` function and the `rules` list taken out; throws if it has neither (the module changed). */
export function withoutLogic(source: string): string {
  const plain = source.replace(/, computed: .*? \},$/gm, ' },').replace(/\n\s*rules: \[[\s\S]*?\n\s*\],/, '');
  if (plain === source || /computed:|rules:/.test(plain)) throw new Error('the sales module no longer has the computed fields and rules the bench takes out of it');
  return plain;
}
