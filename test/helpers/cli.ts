/**
 * The real CLI as a process, for tests that run it: the fixture package's `rmsgen` (./fixtures.ts)
 * with standard input, and plain JSON calls to a server such a process started.
 */
import { spawn } from 'node:child_process';
import { FIXTURE_CLI, ROOT } from './fixtures.ts';
import { envWithoutServeVariables } from './serve-env.ts';

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `node <fixture package>/bin/rmsgen.js <args>` in this checkout, `input` on its standard input, to
 * the end; in the test's environment without the server's variables, plus `env`.
 */
export function runFixtureCli(args: readonly string[], options: { readonly input?: string; readonly env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FIXTURE_CLI, ...args], { cwd: ROOT, env: { ...envWithoutServeVariables(), ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** `POST <url><path>` with a JSON body (and a bearer token); the status and the parsed answer. */
export async function postJson(url: string, path: string, body: unknown, token?: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}
