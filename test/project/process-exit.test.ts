/**
 * Only bin/ ends the process. The commands' code elsewhere (runtime/cli.ts, runtime/auth/cli.ts,
 * the generator …) throws a CliError where it refuses something, and bin/exit.ts prints it and exits:
 * so a command can be run, and its refusals tested, without the process going away under it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/fixtures.ts';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sources(path);
    return /\.(ts|tsx|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

describe('process.exit', () => {
  it('is called in bin/ only', () => {
    const calls = ['runtime', 'generator', 'web/src', 'templates']
      .flatMap((dir) => sources(join(ROOT, dir)))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, index) => (/process\.exit\s*\(/.test(line) ? [`${relative(ROOT, file)}:${index + 1}`] : [])),
      );
    expect(calls).toEqual([]);
  });
});
