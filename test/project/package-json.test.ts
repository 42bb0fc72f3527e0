/**
 * This checkout's package.json, as the real npm reads it: every dependency whose install script
 * `npm install` runs (better-sqlite3 builds its binding, esbuild fetches its binary) is declared
 * in `allowScripts`, so npm installs without a warning today and still runs them once it refuses
 * undeclared ones.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/fixtures.ts';

describe('package.json', () => {
  it('allowScripts covers every installed package with an install script', () => {
    const listed = spawnSync('npm', ['install-scripts', 'ls'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(listed.stdout.trim()).toBe('No packages with unreviewed install scripts.');
    expect(listed.status).toBe(0);
  });
});
