/**
 * The real CLI: `rmsgen serve` prints its one ready line, serves, and shuts down cleanly on
 * SIGTERM; a first start writes the generated admin password to a file, never to its output; `rmsgen migrate` reports
 * what it did.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { postJson } from '../helpers/cli.ts';
import { FIXTURE_CLI, ROOT } from '../helpers/fixtures.ts';
import { envWithoutServeVariables } from '../helpers/serve-env.ts';

/** The real CLI, serving the fixture modules (test/helpers/fixtures.ts). */
const CLI = FIXTURE_CLI;
/** This checkout's CLI, serving the demo modules from a folder that is no project. */
const DEMO_CLI = join(ROOT, 'bin/rmsgen.js');
const dir = mkdtempSync(join(tmpdir(), 'rmsgen-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Served {
  readonly child: ChildProcess;
  readonly url: string;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
}

function serve(args: string[], env: Record<string, string> = {}, cli = CLI): Promise<Served> {
  const child = spawn(process.execPath, [cli, 'serve', ...args], {
    cwd: dir,
    env: { ...envWithoutServeVariables(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line:\n${out}`)), 20_000);
    child.stdout!.on('data', () => {
      const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1]!, output: () => out, exited });
      }
    });
    child.on('exit', () => reject(new Error(`serve exited early:\n${out}`)));
  });
}

describe('rmsgen serve', () => {
  it('serves with RMS_ADMIN_PASSWORD, prints only the ready line, and exits 0 on SIGTERM', async () => {
    const db = join(dir, 'a.sqlite');
    const served = await serve(['--port', '0', '--db', `sqlite:${db}`], { RMS_ADMIN_PASSWORD: 'cli-test-password' });
    expect(served.output()).not.toMatch(/password/);
    const login = await postJson(served.url, '/api/auth/login', { username: 'admin', password: 'cli-test-password' });
    expect(login.status).toBe(200);
    const created = await postJson(served.url, '/api/lead/create', { title: 'From the CLI' }, login.body.token);
    expect(created.status).toBe(200);
    expect(created.body.value).toMatchObject({ title: 'From the CLI', stage: 'new' });
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    expect(served.output().match(/listening on/g)).toHaveLength(1);
  });

  it('writes a generated admin password to data/initial-admin-password on a first start, never to its output, and takes RMS_DB and PORT', async () => {
    const db = join(dir, 'b.sqlite');
    const first = await serve([], { RMS_DB: `sqlite:${db}`, PORT: '0' });
    const file = join(dir, 'data', 'initial-admin-password');
    const password = readFileSync(file, 'utf8').trimEnd();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.output()).toContain(
      'created person admin; its password is in data/initial-admin-password (readable by this user only): sign in, set your own with `rmsgen user passwd admin`, and delete the file\n',
    );
    expect(first.output()).not.toContain(password);
    expect((await postJson(first.url, '/api/auth/login', { username: 'admin', password })).status).toBe(200);
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);

    const second = await serve(['--port', '0', '--db', `sqlite:${db}`]);
    expect(second.output()).not.toMatch(/created person/);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('writes it where --admin-password-file or RMS_ADMIN_PASSWORD_FILE says, the flag first', async () => {
    const byEnv = await serve(['--port', '0', '--db', `sqlite:${join(dir, 'env-file.sqlite')}`], { RMS_ADMIN_PASSWORD_FILE: 'secrets/by-env' });
    expect(byEnv.output()).toContain('its password is in secrets/by-env ');
    const password = readFileSync(join(dir, 'secrets', 'by-env'), 'utf8').trimEnd();
    expect((await postJson(byEnv.url, '/api/auth/login', { username: 'admin', password })).status).toBe(200);
    byEnv.child.kill('SIGTERM');
    expect(await byEnv.exited).toBe(0);

    const flagFile = join(dir, 'by-flag');
    const byFlag = await serve(['--port', '0', '--db', `sqlite:${join(dir, 'flag-file.sqlite')}`, '--admin-password-file', flagFile], { RMS_ADMIN_PASSWORD_FILE: 'secrets/ignored' });
    expect(byFlag.output()).toContain(`its password is in ${flagFile} `);
    expect(existsSync(join(dir, 'secrets', 'ignored'))).toBe(false);
    expect(readFileSync(flagFile, 'utf8').trimEnd()).toMatch(/^\S{12,}$/);
    byFlag.child.kill('SIGTERM');
    expect(await byFlag.exited).toBe(0);
  });

  it('starts without a known admin password when the file cannot be written, and says how to set one', async () => {
    // A path under a regular file cannot be created, even by root.
    writeFileSync(join(dir, 'not-a-folder'), '');
    const served = await serve(['--port', '0', '--db', `sqlite:${join(dir, 'unwritable.sqlite')}`, '--admin-password-file', 'not-a-folder/password']);
    expect(served.output()).toMatch(/^created person admin, but could not write its password to not-a-folder\/password \(.+\); set one with `rmsgen user passwd admin`$/m);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
  });
});

describe('rmsgen serve: logs', () => {
  it('writes a text line per request with --log-format text, none with --no-request-log, and refuses a format it does not know', async () => {
    const db = `sqlite:${join(dir, 'logs.sqlite')}`;
    const text = await serve(['--port', '0', '--db', db, '--log-format', 'text'], { RMS_ADMIN_PASSWORD: 'cli-test-password' });
    expect((await fetch(`${text.url}/healthz`, { headers: { 'x-request-id': 'text-line-1' } })).status).toBe(200);
    text.child.kill('SIGTERM');
    expect(await text.exited).toBe(0);
    expect(text.output()).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z text-line-1 GET \/healthz rest - none - 200 [\d.]+ms \d+B$/m);

    const quiet = await serve(['--port', '0', '--db', db, '--no-request-log'], { RMS_ADMIN_PASSWORD: 'cli-test-password' });
    expect((await fetch(`${quiet.url}/healthz`)).status).toBe(200);
    quiet.child.kill('SIGTERM');
    expect(await quiet.exited).toBe(0);
    expect(quiet.output()).toBe(`listening on ${quiet.url}\nSIGTERM: shutting down\n`);

    for (const [args, env, message] of [
      [['--log-format', 'xml'], {}, 'invalid --log-format / RMS_LOG_FORMAT xml: use json or text'],
      [[], { RMS_LOG_FORMAT: 'yaml' }, 'invalid --log-format / RMS_LOG_FORMAT yaml: use json or text'],
      [[], { RMS_REQUEST_LOG: 'maybe' }, 'invalid RMS_REQUEST_LOG maybe: use on or off'],
      [['--shutdown-timeout', 'soon'], {}, 'invalid --shutdown-timeout / RMS_SHUTDOWN_TIMEOUT_MS soon: use a whole number from 0 to 2147483647'],
      [['--metrics-port', '70000'], {}, 'invalid port 70000: use a number from 0 to 65535'],
    ] as const) {
      const run = spawnSync(process.execPath, [CLI, 'serve', '--port', '0', '--db', db, ...args], { cwd: dir, encoding: 'utf8', env: { ...envWithoutServeVariables(), ...env } });
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 1, stderr: `${message}\n` });
    }
  });

  it('refuses a metrics port it cannot listen on in one line that names the metrics port', async () => {
    const db = `sqlite:${join(dir, 'metrics-port.sqlite')}`;
    const taken = createNetServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const env = { ...envWithoutServeVariables(), RMS_ADMIN_PASSWORD: 'cli-test-password' };
      const busy = spawnSync(process.execPath, [CLI, 'serve', '--port', '0', '--db', db, '--metrics-port', String(port)], { cwd: dir, encoding: 'utf8', env });
      expect({ status: busy.status, stderr: busy.stderr }).toEqual({ status: 1, stderr: `cannot listen: the metrics port: listen EADDRINUSE: address already in use 127.0.0.1:${port}\n` });
      // An address that is not this machine's (TEST-NET-1).
      const foreign = spawnSync(process.execPath, [CLI, 'serve', '--port', '0', '--db', db, '--metrics-port', '0', '--metrics-host', '192.0.2.1'], { cwd: dir, encoding: 'utf8', env });
      expect(foreign.status).toBe(1);
      expect(foreign.stderr).toMatch(/^cannot listen: the metrics port: listen EADDRNOTAVAIL: .*192\.0\.2\.1.*\n$/);
    } finally {
      taken.close();
    }
  });
});

describe('rmsgen serve: retention', () => {
  it('starts with retention set by flags or the environment, and refuses a number of days that is not one, changing nothing', async () => {
    const db = `sqlite:${join(dir, 'retention.sqlite')}`;
    const served = await serve(['--port', '0', '--db', db, '--no-request-log', '--retain-audit-days', '0', '--retain-audit-reads-days', '7', '--retain-history-days', '365'], { RMS_ADMIN_PASSWORD: 'cli-test-password', RMS_RETAIN_AGENT_DAYS: '1' });
    expect((await fetch(`${served.url}/healthz`)).status).toBe(200);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
    // Nothing to prune yet: no line of it; the lease was given up on the way out.
    expect(served.output()).toBe(`listening on ${served.url}\nSIGTERM: shutting down\n`);

    const refused = (flag: string, variable: string, value: string) => `invalid ${flag} / ${variable} ${value}: use a whole number from 0 to 36500`;
    for (const [args, env, message] of [
      [['--retain-audit-days', '-1'], {}, refused('--retain-audit-days', 'RMS_RETAIN_AUDIT_DAYS', '-1')],
      [[], { RMS_RETAIN_AUDIT_DAYS: 'forever' }, refused('--retain-audit-days', 'RMS_RETAIN_AUDIT_DAYS', 'forever')],
      [['--retain-audit-reads-days', '1.5'], {}, refused('--retain-audit-reads-days', 'RMS_RETAIN_AUDIT_READS_DAYS', '1.5')],
      [['--retain-history-days', '36501'], {}, refused('--retain-history-days', 'RMS_RETAIN_HISTORY_DAYS', '36501')],
      [[], { RMS_RETAIN_AGENT_DAYS: '30d' }, refused('--retain-agent-days', 'RMS_RETAIN_AGENT_DAYS', '30d')],
    ] as const) {
      const run = spawnSync(process.execPath, [CLI, 'serve', '--port', '0', '--db', `sqlite:${join(dir, 'never.sqlite')}`, ...args], { cwd: dir, encoding: 'utf8', env: { ...envWithoutServeVariables(), ...env } });
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 1, stderr: `${message}\n` });
    }
    expect(existsSync(join(dir, 'never.sqlite'))).toBe(false);
  }, 120_000);
});

describe('rmsgen serve: files', () => {
  it('starts with --files, --max-upload and --agent-file-bytes-per-day from flags or the environment, and refuses values it cannot read, changing nothing', async () => {
    const db = `sqlite:${join(dir, 'files.sqlite')}`;
    const store = join(dir, 'uploads');
    // The demo's CLI: an upload is for a caller that may write a file field, and only the demo's
    // order has one (the fixture modules have none).
    const served = await serve(['--port', '0', '--db', db, '--no-request-log', '--files', `disk:${store}`, '--agent-file-bytes-per-day', '10MB'], { RMS_ADMIN_PASSWORD: 'cli-test-password', RMS_MAX_UPLOAD: '1KB' }, DEMO_CLI);
    const login = await fetch(`${served.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'cli-test-password' }) });
    const { token } = (await login.json()) as { token: string };
    const upload = (bytes: number) => fetch(`${served.url}/api/files`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' }, body: 'x'.repeat(bytes) });
    expect((await upload(1024)).status).toBe(201);
    expect(await (await upload(1025)).json()).toEqual({ error: 'the upload is larger than this server takes (1 KB)' });
    expect(existsSync(join(store, 'tmp'))).toBe(true);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);

    for (const [args, env, message] of [
      [['--files', 's3://bucket'], {}, 'invalid --files / RMS_FILES s3://bucket (use disk:<directory> or db)'],
      [[], { RMS_FILES: 'disk:' }, 'invalid --files / RMS_FILES disk: (use disk:<directory> or db)'],
      [['--max-upload', '50'], {}, "invalid --max-upload / RMS_MAX_UPLOAD 50 (use a whole number and a unit, B, KB, MB or GB (1 KB = 1024 B), such as '20MB')"],
      [[], { RMS_MAX_UPLOAD: '0MB' }, "invalid --max-upload / RMS_MAX_UPLOAD 0MB (use a whole number and a unit, B, KB, MB or GB (1 KB = 1024 B), such as '20MB')"],
      [['--agent-file-bytes-per-day', 'lots'], {}, "invalid --agent-file-bytes-per-day / RMS_AGENT_FILE_BYTES_PER_DAY lots (use a whole number and a unit, B, KB, MB or GB (1 KB = 1024 B), such as '20MB')"],
    ] as const) {
      const run = spawnSync(process.execPath, [CLI, 'serve', '--port', '0', '--db', `sqlite:${join(dir, 'never.sqlite')}`, ...args], { cwd: dir, encoding: 'utf8', env: { ...envWithoutServeVariables(), ...env } });
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 1, stderr: `${message}\n` });
    }
    expect(existsSync(join(dir, 'never.sqlite'))).toBe(false);
  }, 120_000);
});

describe('rmsgen migrate', () => {
  it('creates the tables on a fresh database, then has nothing to do', () => {
    const db = `sqlite:${join(dir, 'c.sqlite')}`;
    const first = spawnSync(process.execPath, [CLI, 'migrate', '--db', db], { cwd: dir, encoding: 'utf8', env: envWithoutServeVariables() });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout.split('\n')).toEqual(expect.arrayContaining(['created table party', 'created table lead', 'created table invoice']));
    const second = spawnSync(process.execPath, [CLI, 'migrate', '--db', db], { cwd: dir, encoding: 'utf8', env: envWithoutServeVariables() });
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout.trim()).toBe('schema is up to date');
  });
});
