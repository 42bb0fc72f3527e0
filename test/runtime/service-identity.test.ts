/**
 * What a service calls itself (runtime/service-identity.ts): the checks of `--name`, `--colour`
 * and `--locale`, and the real CLI that takes them (flags over `RMS_SERVICE_NAME`,
 * `RMS_SERVICE_COLOUR`, `RMS_LOCALE`), refuses a wrong one at start with its reason, and answers
 * them at `GET /api/service` without sign-in.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVICE_INFO, serviceInfo, ServiceSettingError } from '../../runtime/service-identity.ts';
import { FIXTURE_CLI } from '../helpers/fixtures.ts';
import { envWithoutServeVariables } from '../helpers/serve-env.ts';

describe('serviceInfo', () => {
  it('defaults to today’s app: Records, its bar colour, each reader’s locale', () => {
    expect(serviceInfo({})).toEqual({ name: 'Records', colour: '#1f2735', locale: null });
    expect(DEFAULT_SERVICE_INFO).toEqual(serviceInfo({}));
  });

  it.each([
    [{ name: '  Acme Lettings ' }, { name: 'Acme Lettings' }],
    [{ colour: '#F4C542' }, { colour: '#f4c542' }],
    [{ locale: 'en-gb' }, { locale: 'en-GB' }],
    [{ locale: 'de-CH' }, { locale: 'de-CH' }],
    [{ locale: 'fr' }, { locale: 'fr' }],
    [{ name: 'Ü'.repeat(60) }, { name: 'Ü'.repeat(60) }],
  ])('takes %j', (settings, expected) => expect(serviceInfo(settings)).toEqual({ ...DEFAULT_SERVICE_INFO, ...expected }));

  it.each([
    [{ name: '   ' }, 'invalid name: it is empty; give the name people know the service by'],
    [{ name: 'x'.repeat(61) }, `invalid name "${'x'.repeat(61)}": at most 60 characters`],
    [{ name: 'Two\nlines' }, 'invalid name "Two\\nlines": no control characters (line breaks, tabs)'],
    [{ colour: 'red' }, 'invalid colour red: write it as #rrggbb, like #1f2735'],
    [{ colour: '#abc' }, 'invalid colour #abc: write it as #rrggbb, like #1f2735'],
    [{ colour: '#12345g' }, 'invalid colour #12345g: write it as #rrggbb, like #1f2735'],
    [{ locale: 'english please' }, 'invalid locale english please: write a locale tag like en-GB, de-DE or fr-CH'],
    [{ locale: '' }, 'invalid locale : write a locale tag like en-GB, de-DE or fr-CH'],
    [{ locale: 'qq-QQ' }, 'invalid locale qq-QQ: no locale data for it; use one like en-GB, de-DE or fr-CH'],
  ])('refuses %j: %s', (settings, message) => {
    expect(() => serviceInfo(settings)).toThrow(new ServiceSettingError(message));
  });
});

describe('rmsgen serve --name --colour --locale', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmsgen-service-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs `serve` until it listens (then reads GET /api/service and stops it) or exits; its output and exit code. */
  function serve(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string; service?: unknown }> {
    const child = spawn(process.execPath, [FIXTURE_CLI, 'serve', '--port', '0', '--db', `sqlite:${join(dir, `${Math.random()}.sqlite`)}`, ...args], {
      cwd: dir,
      env: { ...envWithoutServeVariables(), RMS_ADMIN_PASSWORD: 'service-test-password', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let service: unknown;
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.stdout!.on('data', async (chunk) => {
      output += chunk;
      const listening = /^listening on (http:\S+)$/m.exec(output);
      if (!listening || service !== undefined) return;
      service = null;
      service = await (await fetch(`${listening[1]}/api/service`)).json();
      child.kill('SIGTERM');
    });
    return exited.then((code) => ({ code, output, ...(service ? { service } : {}) }));
  }

  it('takes the flags, over the environment, and answers them before sign-in', async () => {
    const flags = await serve(['--name', 'Acme Lettings', '--colour', '#F4C542', '--locale', 'en-gb'], { RMS_SERVICE_NAME: 'Other', RMS_LOCALE: 'de-DE' });
    expect(flags.service).toEqual({ name: 'Acme Lettings', colour: '#f4c542', locale: 'en-GB' });
    expect(flags.code).toBe(0);
    const fromEnv = await serve([], { RMS_SERVICE_NAME: 'Lettings', RMS_SERVICE_COLOUR: '#004d40', RMS_LOCALE: 'fr-CH' });
    expect(fromEnv.service).toEqual({ name: 'Lettings', colour: '#004d40', locale: 'fr-CH' });
  });

  it.each([
    [['--colour', 'teal'], {}, 'invalid --colour / RMS_SERVICE_COLOUR teal: write it as #rrggbb, like #1f2735'],
    [[], { RMS_LOCALE: 'not a locale' }, 'invalid --locale / RMS_LOCALE not a locale: write a locale tag like en-GB, de-DE or fr-CH'],
    [['--name', ' '], {}, 'invalid --name / RMS_SERVICE_NAME: it is empty; give the name people know the service by'],
  ])('refuses %j %j at start, saying why', async (args, env, message) => {
    const refused = await serve(args, env);
    expect(refused.code).toBe(1);
    expect(refused.output).toBe(`${message}\n`);
  });
});
