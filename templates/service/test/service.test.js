/**
 * The service as its clients see it: the real `rmsgen serve` (the compiled server that
 * `npx rmsgen build` made) on a fresh SQLite file and a free port, over HTTP. Node's own test
 * runner and fetch; nothing to install. Run it with `npm test`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SERVICE = fileURLToPath(new URL('..', import.meta.url));
const RMSGEN = join(SERVICE, 'node_modules', 'rmsgen', 'bin', 'rmsgen.js');
const PASSWORD = 'a-password-for-tests';
const data = mkdtempSync(join(tmpdir(), 'service-test-'));

let server;
let url;
let output = '';

before(async () => {
  server = spawn(process.execPath, [RMSGEN, 'serve', '--port', '0', '--db', `sqlite:${join(data, 'test.sqlite')}`], {
    cwd: SERVICE,
    env: { ...process.env, RMS_ADMIN_PASSWORD: PASSWORD },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not listen within 60 s:\n${output}`)), 60_000);
    const read = (chunk) => {
      output += chunk;
      const listening = /^listening on (http:\/\/\S+)$/m.exec(output);
      if (listening) {
        clearTimeout(timer);
        resolve(listening[1]);
      }
    };
    server.stdout.on('data', read);
    server.stderr.on('data', read);
    server.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}):\n${output}`));
    });
  });
});

after(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.on('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  rmSync(data, { recursive: true, force: true });
});

/** POST /api/<path> with a JSON body: the status and the JSON answer. */
async function api(path, body, token) {
  const response = await fetch(`${url}/api/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function signIn() {
  const login = await api('auth/login', { username: 'admin', password: PASSWORD });
  assert.equal(login.status, 200, JSON.stringify(login.body));
  return login.body.token;
}

test('a customer raises a ticket; support solves it with a solution, once', async () => {
  const token = await signIn();
  const customer = await api('customer/create', { name: 'Ada Lovelace', email: 'ada@example.com' }, token);
  assert.equal(customer.status, 200);
  const customerId = customer.body.value.id;
  assert.deepEqual(customer.body, { denied: [], value: { id: customerId, name: 'Ada Lovelace', email: 'ada@example.com' } });

  // A new ticket starts at the first option of its governed status.
  const ticket = await api('ticket/create', { subject: 'Cannot sign in', customer: customerId }, token);
  assert.equal(ticket.status, 200);
  const id = ticket.body.value.id;
  assert.deepEqual(ticket.body.value, { id, subject: 'Cannot sign in', customer: customerId, status: 'open', solution: null });

  assert.deepEqual(await api('ticket/solve', { id }, token), { status: 400, body: { error: 'ticket.solution is required' } });
  const solved = await api('ticket/solve', { id, solution: 'Reset the password' }, token);
  assert.deepEqual(solved, {
    status: 200,
    body: { denied: [], value: { id, subject: 'Cannot sign in', customer: customerId, status: 'solved', solution: 'Reset the password' } },
  });
  assert.deepEqual(await api('ticket/solve', { id, solution: 'Again' }, token), { status: 400, body: { error: 'ticket.status is solved; solve needs open' } });

  const search = await api('ticket/search', { filter: [{ field: 'status', op: 'eq', value: 'solved' }] }, token);
  assert.deepEqual(search.body.value, { rows: [solved.body.value], total: 1 });
});

test('agents read personal fields as tokens', async () => {
  const token = await signIn();
  const customer = await api('customer/create', { name: 'Grace Hopper', email: 'grace@example.com' }, token);
  const agent = await api('auth/agent-token', { scopes: ['customer.get'], label: 'test bot' }, token);
  assert.equal(agent.status, 200, JSON.stringify(agent.body));
  const read = await api('customer/get', { id: customer.body.value.id }, agent.body.token);
  assert.deepEqual(read, { status: 200, body: { denied: [], value: { id: customer.body.value.id, name: 'NAME_1', email: 'EMAIL_1' } } });
});

test('GET /api/meta describes the models', async () => {
  const token = await signIn();
  const response = await fetch(`${url}/api/meta`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(response.status, 200);
  const meta = await response.json();
  assert.deepEqual(
    meta.models.map((model) => [model.name, model.fields.map((field) => field.name), model.actions.map((action) => action.name)]),
    [
      ['customer', ['name', 'email'], []],
      ['ticket', ['subject', 'customer', 'status', 'solution'], ['solve']],
    ],
  );
});
