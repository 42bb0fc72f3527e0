/** runtime/generated-json.ts: a generated JSON file read when first wanted, once. */
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonFileOnDemand } from '../../runtime/generated-json.ts';

const dir = mkdtempSync(join(tmpdir(), 'rmsgen-generated-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('jsonFileOnDemand', () => {
  it('reads nothing until called, then parses the file once and shares the result', async () => {
    const file = join(dir, 'document.json');
    const load = jsonFileOnDemand<{ n: number }>(pathToFileURL(file));
    // Not read when made: the file does not exist yet.
    writeFileSync(file, '{"n": 1}');
    const first = await load();
    expect(first).toEqual({ n: 1 });
    writeFileSync(file, '{"n": 2}');
    expect(await load()).toBe(first);
  });

  it('fails a call when the file is missing or is not JSON, and reads it again at the next call', async () => {
    const file = join(dir, 'later.json');
    const load = jsonFileOnDemand<{ n: number }>(pathToFileURL(file));
    await expect(load()).rejects.toMatchObject({ code: 'ENOENT' });
    writeFileSync(file, '{"n":');
    await expect(load()).rejects.toThrow(SyntaxError);
    writeFileSync(file, '{"n": 3}');
    expect(await load()).toEqual({ n: 3 });
    unlinkSync(file);
    expect(await load()).toEqual({ n: 3 });
  });
});
