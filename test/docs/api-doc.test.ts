/**
 * docs/api.md against the real server: every command, every filter operator and every error text
 * the page names exists — commands in the registry and `GET /api/commands`, operators as
 * FILTER_OPERATORS (both ways), and each error provoked over HTTP on a real server with a real
 * SQLite file, its status and body compared with the page's table. The few errors no client can
 * provoke on purpose (a bug's 500, a client that goes away mid-body) are matched against the
 * runtime's sources instead. The server serves the fixture modules (test/fixtures/modules), the
 * crm and accounting modules the page's examples are written against.
 *
 * The record history commands (`<model>.history`, `<model>.revert`) are documented before the
 * registry has them: their checks are skipped, saying so, until it does, and run from then on.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../fixtures/generated/registry.ts';
import { FILTER_OPERATORS } from '../../runtime/api-shapes.ts';
import { startTestServer, type TestResponse, type TestServer } from '../helpers/server.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const DOC = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');

// ---------------------------------------------------------------------------------------------
// Reading the page

/** The rows (cells, trimmed) of every table whose header row is exactly `header`. */
function tableRows(header: readonly string[]): string[][] {
  const rows: string[][] = [];
  const lines = DOC.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (cellsOf(lines[i]!)?.join('\u0000') !== header.join('\u0000')) continue;
    expect(lines[i + 1], `separator under the table header ${header.join(' | ')}`).toMatch(/^\|( *-+ *\|)+$/);
    for (let j = i + 2; j < lines.length && lines[j]!.startsWith('|'); j++) rows.push(cellsOf(lines[j]!)!);
  }
  return rows;
}

function cellsOf(line: string): string[] | undefined {
  if (!line.startsWith('|') || !line.trimEnd().endsWith('|')) return undefined;
  return line
    .trim()
    .slice(1, -1)
    .split('|')
    .map((cell) => cell.trim());
}

/** The text of the first code span of a cell. */
function code(cell: string): string {
  const match = /`([^`]+)`/.exec(cell);
  if (!match) throw new Error(`no code span in table cell: ${cell}`);
  return match[1]!;
}

/** The fenced blocks of the page whose info string is `lang`. */
function fencedBlocks(lang: string): string[] {
  return [...DOC.matchAll(new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'gm'))].map((match) => match[1]!);
}

/** A documented error text as a pattern: `<…>` stands for any names or values of the call. */
function templatePattern(template: string): RegExp {
  const parts = template.split(/<[a-z_]+>/);
  return new RegExp(`^${parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+?')}$`, 's');
}

interface DocumentedError {
  readonly status: number;
  readonly template: string;
}

const ERRORS: DocumentedError[] = tableRows(['Status', 'Error', 'When']).map(([status, error]) => ({ status: Number(status), template: code(error!) }));
const MCP_ERRORS = tableRows(['HTTP', 'JSON-RPC code', 'Message', 'When']).map(([status, rpc, message]) => ({ status: Number(status), code: Number(rpc), message: code(message!) }));

const MODELS = Object.keys(registry.models);
const HISTORY_COMMANDS = ['history', 'revert'];
/** Whether the registry has the record history commands yet (see the file comment). */
const HAS_HISTORY = MODELS.every((model) => HISTORY_COMMANDS.every((name) => `${model}.${name}` in registry.commands));
/** The errors of `<model>.revert`, provoked by the history tests. */
const HISTORY_TEMPLATES = new Set([
  'change_id is required',
  'change_id must be a string',
  'change <change_id> cannot be reverted',
  '<model> <id> changed since change <change_id>',
  'change <change_id> not found',
]);

/** Commands only a model that holds personal data has (a personal field of its own or of its lines). */
const PERSONAL_DATA_COMMANDS = ['erase'];

function holdsPersonalData(model: string): boolean {
  const meta = registry.models[model]!;
  return meta.fields.some((field) => field.personal) || meta.lines.some((list) => list.fields.some((field) => field.personal));
}

function isHistoryCommand(id: string): boolean {
  return HISTORY_COMMANDS.includes(id.slice(id.indexOf('.') + 1));
}

// ---------------------------------------------------------------------------------------------
// The server

let t: TestServer;
let admin: string;
let sales: string;

beforeAll(async () => {
  // Trusting loopback's X-Forwarded-For lets the sign-in throttle be provoked from an address of
  // its own, leaving 127.0.0.1 free to sign in for the rest of the tests.
  // No delivery worker: the webhook a provocation makes points at a public address this machine cannot reach.
  t = await startTestServer({ trustProxy: 'loopback', webhooks: { worker: false } });
  admin = await t.login();
  sales = await t.addPerson('sally', ['sales']);
});

afterAll(async () => {
  await t?.close();
});

async function ok(token: string, commandId: string, input: unknown): Promise<any> {
  const res = await t.command(token, commandId, input);
  expect(res.status, `${commandId} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body.value;
}

async function agentToken(person: string, scopes: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const res = await t.request('POST', '/api/auth/agent-token', { scopes, label: 'doc bot', ...extra }, person);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.token as string;
}

/** A request whose body is sent as these bytes, with these headers. */
async function raw(path: string, body: string | Uint8Array<ArrayBuffer>, headers: Record<string, string>): Promise<TestResponse> {
  const res = await fetch(t.url + path, { method: 'POST', body, headers: { authorization: `Bearer ${admin}`, ...headers } });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

const login = (body: unknown, address = '198.51.100.1') => t.request('POST', '/api/auth/login', body, undefined, { 'x-forwarded-for': address });
const newToken = (person: string, body: unknown) => t.request('POST', '/api/auth/agent-token', body, person);
const audit = (query: string) => t.request('GET', `/api/audit?${query}`, undefined, admin);

// ---------------------------------------------------------------------------------------------
// Commands

describe('commands', () => {
  const rows = tableRows(['Command', 'Input', '`value`']).map(([command]) => code(command!));
  const generic = rows.filter((id) => id.startsWith('<model>.') && id !== '<model>.<action>' && id !== '<model>.<action>_many').map((id) => id.slice('<model>.'.length));

  it('the commands table names the generated commands and the workflow actions', () => {
    expect(generic).toEqual(expect.arrayContaining(['get', 'list', 'search', 'create', 'update', 'delete', ...HISTORY_COMMANDS]));
    expect(rows).toContain('<model>.<action>');
  });

  it('every model has every documented command, in the registry and in GET /api/commands', async () => {
    const res = await t.request('GET', '/api/commands', undefined, admin);
    expect(res.status).toBe(200);
    const listed = new Set((res.body.commands as { id: string }[]).map((command) => command.id));
    for (const model of MODELS) {
      for (const name of generic) {
        const id = `${model}.${name}`;
        if (!HAS_HISTORY && HISTORY_COMMANDS.includes(name)) continue; // checked below once they exist
        if (PERSONAL_DATA_COMMANDS.includes(name) && !holdsPersonalData(model)) {
          expect(registry.commands[id], `${id}: nothing personal to erase`).toBeUndefined();
          continue;
        }
        expect(registry.commands[id], `${id} in the registry`).toBeDefined();
        expect(listed.has(id), `${id} in GET /api/commands`).toBe(true);
      }
    }
    // And the other way round: every command is a documented generated one, a workflow action or an action's bulk command (`<model>.<action>_many`).
    for (const id of listed) {
      const command = registry.commands[id]!;
      expect(command.kind === 'action' || command.kind === 'action_many' || generic.includes(command.name), `${id} is documented`).toBe(true);
    }
  });

  it.skipIf(!HAS_HISTORY)('every model has <model>.history and <model>.revert', () => {
    for (const model of MODELS) for (const name of HISTORY_COMMANDS) expect(registry.commands[`${model}.${name}`], `${model}.${name}`).toBeDefined();
  });

  it('every command path of the examples and every <model>.<name> the page names exists', () => {
    const named = new Set<string>();
    for (const block of fencedBlocks('sh')) {
      for (const match of block.matchAll(/(?:\bapi |\/api\/)([a-z_]+)\/([a-z_]+)/g)) {
        if (MODELS.includes(match[1]!)) named.add(`${match[1]}.${match[2]}`);
      }
    }
    expect(named.size).toBeGreaterThan(8);
    for (const match of DOC.matchAll(/`([a-z_]+)\.([a-z_]+)`/g)) {
      if (MODELS.includes(match[1]!)) named.add(`${match[1]}.${match[2]}`);
    }
    for (const id of named) {
      if (!HAS_HISTORY && isHistoryCommand(id)) continue;
      const [model, name] = id.split('.') as [string, string];
      const isField = registry.models[model]!.fields.some((field) => field.name === name);
      expect(isField || id in registry.commands, `${id} is a command or a field`).toBe(true);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Filter operators

describe('filter operators', () => {
  const documented = tableRows(['Operator', 'Matches', 'Empty values']).flatMap(([cell]) => [...cell!.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]!));

  it('the page documents exactly the runtime operators', () => {
    expect([...documented].sort()).toEqual([...FILTER_OPERATORS].sort());
  });

  it('each operator works as documented, empty values included', async () => {
    const tag = `ops-${Date.now()}`;
    const full = await ok(admin, 'lead.create', { title: `${tag} full`, probability: 50, lost_reason: 'Budget cut' });
    const empty = await ok(admin, 'lead.create', { title: `${tag} empty` });
    // For each operator, a condition and which of the two leads it matches (`empty` has no probability and no lost_reason).
    const cases: Record<(typeof FILTER_OPERATORS)[number], readonly { field: string; value?: unknown; matches: string[] }[]> = {
      eq: [{ field: 'probability', value: 50, matches: [full.id] }],
      ne: [{ field: 'probability', value: 40, matches: [full.id, empty.id] }],
      contains: [{ field: 'lost_reason', value: 'BUDGET', matches: [full.id] }],
      in: [{ field: 'probability', value: [50, 60], matches: [full.id] }],
      gt: [{ field: 'probability', value: 10, matches: [full.id] }],
      gte: [{ field: 'probability', value: 50, matches: [full.id] }],
      lt: [{ field: 'probability', value: 60, matches: [full.id] }],
      lte: [{ field: 'probability', value: 50, matches: [full.id] }],
      is_null: [
        { field: 'probability', matches: [empty.id] },
        { field: 'probability', value: true, matches: [empty.id] },
        { field: 'probability', value: false, matches: [full.id] },
      ],
    };
    for (const op of documented) {
      for (const { field, value, matches } of cases[op as keyof typeof cases]) {
        const condition = value === undefined ? { field, op } : { field, op, value };
        const rows = await ok(admin, 'lead.list', { filter: [{ field: 'title', op: 'contains', value: tag }, condition], order: [{ field: 'title' }] });
        expect(
          (rows as { id: string }[]).map((row) => row.id).sort(),
          JSON.stringify(condition),
        ).toEqual([...matches].sort());
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Error texts

type Provocation = () => Promise<TestResponse>;

/** Errors no client provokes on purpose: matched against the runtime's sources. */
const SOURCE_ONLY = new Set([
  'request size did not match Content-Length',
  'request aborted',
  'internal error',
  // No fixture model has a phone field; the kind's own tests provoke it (test/http/field-kinds.test.ts).
  '<model>.<field> must be a phone number',
  // No fixture model has a personal file field; the files tests provoke it (test/http/files.test.ts).
  '<model>.<field>: token_filter takes no file fields',
  // No demo function gives NaN; test/http/computed-values.test.ts provokes it with a module of its own.
  '<path> is not a finite number (the value its computed function gave)',
  // More than 10,000 records: test/http/list-pages.test.ts makes them and provokes it over MCP.
  '<model>.<command> without a limit answers at most <most> records at once here, and more match: give a limit (1 to 5000), with "after": "" to read the rest page by page',
]);

describe('error texts', () => {
  let party: { id: string };
  let lead: { id: string };
  let cursor: string;
  let agent: string;

  beforeAll(async () => {
    party = await ok(admin, 'party.create', { name: 'Doc Party', tax_id: 'DOC-1' });
    lead = await ok(admin, 'lead.create', { title: 'Doc lead', party: party.id });
    await ok(admin, 'lead.create', { title: 'Doc lead 2' });
    const page = await t.command(admin, 'lead.list', { order: [{ field: 'title' }], limit: 1, after: '' });
    cursor = page.body.next;
    expect(cursor).toEqual(expect.any(String));
    agent = await agentToken(admin, ['lead.*', 'party.*']);
  });

  const get: Provocation = () => t.command(admin, 'lead.get', { id: 'x' });
  const list = (input: unknown) => t.command(admin, 'lead.list', input);
  const create = (input: unknown) => t.command(admin, 'lead.create', input);
  const filter = (...conditions: unknown[]) => list({ filter: conditions });
  const json = { 'content-type': 'application/json' };
  const ITEM = { description: 'Doc item', quantity: 1, unit_price: 100 };
  let orderNumber = 0;
  /** A valid order's input, each with a number of its own. */
  const orderInput = (extra: Record<string, unknown> = {}) => ({ number: `DO-${String(++orderNumber).padStart(4, '0')}`, customer: party.id, items: [ITEM], ...extra });
  const order = (extra: Record<string, unknown>, token = admin) => t.command(token, 'order.create', orderInput(extra));

  const hook = (command: string, input: unknown) => t.request('POST', `/api/webhook/${command}`, input, admin);
  const PUBLIC_HOOK = 'https://93.184.215.14/hook';
  const SECRET = 'whsec_' + Buffer.alloc(32, 9).toString('base64');
  /** Runs `call` with a webhook made for it, then deletes the webhook. */
  const withWebhook = async (call: (id: string) => Promise<TestResponse>): Promise<TestResponse> => {
    const made = await hook('create', { url: PUBLIC_HOOK, as_role: 'sales' });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    try {
      return await call(made.body.value.id as string);
    } finally {
      await hook('delete', { id: made.body.value.id });
    }
  };

  /** How each documented error is provoked; the key is its text as the page writes it. */
  const provocations: Record<string, Provocation> = {
    // Any request
    'malformed JSON': () => raw('/api/lead/list', '{x', json),
    'body is not valid UTF-8': () => raw('/api/lead/list', new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), json),
    'body does not match its Content-Encoding': () => raw('/api/lead/list', 'not gzip at all', { ...json, 'content-encoding': 'gzip' }),
    'malformed percent-encoding in the path': () => t.request('POST', '/api/lead%FF/get', {}, admin),
    'missing bearer token': () => t.request('POST', '/api/lead/list', {}),
    'invalid or expired token': () => t.request('POST', '/api/lead/list', {}, `rms_s_${'A'.repeat(43)}`),
    'not found': () => t.command(admin, 'lead.nope', {}),
    'method not allowed: commands are called with POST': async () => {
      const res = await t.request('GET', '/api/lead/get', undefined, admin);
      expect(res.headers.get('allow')).toBe('POST');
      return res;
    },
    'body too large': () => raw('/api/lead/list', `{"filter":[],"pad":"${'x'.repeat(1_100_000)}"}`, json),
    'Content-Type must be application/json': () => raw('/api/lead/list', '{}', { 'content-type': 'text/plain' }),
    'Content-Type charset must be utf-8': () => raw('/api/lead/list', '{}', { 'content-type': 'application/json; charset=utf-16' }),
    'unsupported Content-Encoding': () => raw('/api/lead/list', '{}', { ...json, 'content-encoding': 'compress' }),
    'rate limit exceeded': async () => {
      const limited = await agentToken(admin, ['lead.*'], { limits: { requests_per_minute: 1 } });
      // Fixed clock minutes: of four calls in a row at least two share a window, so one is refused.
      let res: TestResponse | undefined;
      for (let i = 0; i < 4 && res?.status !== 429; i++) res = await t.command(limited, 'lead.list', { limit: 1 });
      expect(Number(res!.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res!.headers.get('ratelimit-limit')).toBe('1');
      expect(res!.headers.get('ratelimit-remaining')).toBe('0');
      expect(res!.headers.get('ratelimit-reset')).toEqual(expect.stringMatching(/^\d+$/));
      return res!;
    },

    // Command input
    'input must be a JSON object': () => t.command(admin, 'lead.get', []),
    'dry_run must be true (or left out)': () => t.request('POST', '/api/lead/get?dry_run=1', { id: lead.id }, admin),
    'id is required': () => t.command(admin, 'lead.get', {}),
    'id must be a string': () => t.command(admin, 'lead.get', { id: 5 }),
    'id must be at most 64 characters': () => t.command(admin, 'lead.get', { id: 'x'.repeat(65) }),
    'id must not contain NUL characters': () => t.command(admin, 'lead.get', { id: 'x\u0000' }),
    'unknown field <model>.<field>': () => create({ title: 'x', margin: 1 }),
    '<model>.<action> does not take <model>.<field>': () => t.command(admin, 'lead.qualify', { id: lead.id, title: 'x' }),
    '<model>.<field> is required': () => create({}),
    '<model>.<field> must be a string': () => create({ title: 5 }),
    '<model>.<field> must be valid Unicode text': () => raw('/api/lead/create', '{"title":"\\ud800"}', json),
    '<model>.<field> must not contain NUL characters': () => create({ title: 'a\u0000b' }),
    '<model>.<field> must be at most <n> characters': () => create({ title: 'x'.repeat(10_001) }),
    '<model>.<field> must be an integer': () => create({ title: 'x', probability: 1.5 }),
    '<model>.<field> must be an integer amount in minor units (12.34 is 1234)': () => create({ title: 'x', expected_revenue: 12.34 }),
    '<model>.<field> must be a real calendar date YYYY-MM-DD': () => create({ title: 'x', close_date: '2026-02-30' }),
    '<model>.<field> must be true or false': () => create({ title: 'x', hot: 'yes' }),
    '<model>.<field> must be one of: <options>': () => t.command(admin, 'party.create', { name: 'x', kind: 'robot' }),
    '<model>.<field> must be the id of a <target>': () => create({ title: 'x', party: 5 }),
    '<model>.<field>: no <target> with id <id>': () => create({ title: 'x', party: 'nope' }),
    '<model>.<field> must be unique': () => t.command(admin, 'party.create', { name: 'Copy', tax_id: 'DOC-1' }),
    '<model>.<field> is set by actions (<actions>), not by create': () => create({ title: 'x', stage: 'won' }),
    '<model>.<field> cannot move from <from> to <to>': () => t.command(admin, 'lead.update', { id: lead.id, stage: 'won' }),
    '<model>.<field> is <state>; <action> needs <states>': () => t.command(admin, 'lead.win', { id: lead.id }),
    '<model> <id> not found': get,
    '<model> <id> is referred to by <other_model> <other_id>': () => t.command(admin, 'party.delete', { id: party.id }),
    'invalid token': () => t.command(agent, 'party.create', { name: 'NAME_999' }),

    // Kinds, checks, lines, rules and locks
    '<model>.<field> must be at least <min>': () => order({ discount_pct: -1 }),
    '<model>.<field> must be at most <max>': () => order({ discount_pct: 101 }),
    '<model>.<field> does not match the required pattern': () => order({ number: 'no pattern' }),
    '<model>.<field> must be a number': () => order({ discount_pct: 'ten' }),
    '<model>.<field> has at most <scale> decimal places': () => order({ discount_pct: 1.234 }),
    '<model>.<field> is too large': () => order({ discount_pct: 1e15 }),
    '<path> is too large: the computed value is past what the field holds exactly': () =>
      order({ items: [{ description: 'Huge', quantity: 1, unit_price: Number.MAX_SAFE_INTEGER }, { description: 'One more', quantity: 1, unit_price: 2 }] }),
    '<model>.<field> must be a date and time in ISO 8601 with an offset, such as 2026-11-26T14:30:00Z': () => order({ delivered_at: '2026-11-26 14:30' }),
    '<model>.<field> must be an email address': () => order({ contact_email: 'not an address' }),
    '<model>.<field> must be a URL': () => order({ website: 'ftp://example.org' }),
    '<model>.<field> must be a list of options of: <options>': () => order({ tags: 'rush' }),
    '<model>.<field> must list options of: <options>': () => order({ tags: ['rush', 'slow'] }),
    '<model>.<field> is computed': () => order({ total: 5 }),
    '<model>.<field> cannot be written by your role': () => order({ credit_limit: 100 }, sales),
    '<model> is <state> and cannot be changed': async () => {
      const cancelled = await ok(admin, 'order.create', orderInput());
      await ok(admin, 'order.cancel', { id: cancelled.id, reason: 'doc' });
      return t.command(admin, 'order.update', { id: cancelled.id, deliver_by: '2030-01-01' });
    },
    '<model>: <message>': async () => {
      const res = await order({ ordered_on: '2026-01-10', deliver_by: '2026-01-01' });
      expect(res.body.fields).toEqual(['deliver_by']);
      return res;
    },
    '<model>.<lines> needs at least <count>': () => order({ items: [] }),
    '<model>.<lines> has at most <count>': () => order({ items: Array.from({ length: 501 }, () => ITEM) }),
    '<model>.<lines> must be a list of lines': () => order({ items: 'many' }),
    '<model>.<lines>[<index>].id is not a line of this <model>': async () => {
      const made = await ok(admin, 'order.create', orderInput());
      return t.command(admin, 'order.update', { id: made.id, items: [{ id: 'not-a-line', quantity: 2 }] });
    },
    '<model>.<field> cannot move from <from> to <to> by update: run <model>.<action>, which needs <inputs>': async () => {
      const made = await ok(admin, 'order.create', orderInput());
      return t.command(admin, 'order.update', { id: made.id, status: 'cancelled' });
    },
    'include: <model> has no line list <name>': () => t.command(admin, 'order.list', { include: ['lines'] }),
    '<model>.<field>: <op> needs a list of options (use is_null for empty values)': () => t.command(admin, 'order.list', { filter: [{ field: 'tags', op: 'eq', value: 'rush' }] }),
    '<model>.<field>: contains needs an option': () => t.command(admin, 'order.list', { filter: [{ field: 'tags', op: 'contains', value: null }] }),

    // Filters, order and paging
    'unknown key <key>': () => list({ foo: 1 }),
    'unknown field <model>.<field>: it is personal data, masked for you, so it cannot be filtered or ordered by its value; to find records by it, use token_filter with eq or in and a masking token you were given': () =>
      t.command(agent, 'party.list', { filter: [{ field: 'name', op: 'eq', value: 'Ada' }] }),
    'unknown field <model>.<list>.<field>: it is personal data, masked for you, so it cannot be filtered by its value, nor by its tokens (token_filter takes fields of the record, not of its lines)': async () =>
      t.command(await agentToken(admin, ['order.*']), 'order.list', { filter: [{ field: 'items.note', op: 'eq', value: 'x' }] }),
    '<model>.<list>.<field>: token_filter takes fields of the record, not of its lines': async () =>
      t.command(await agentToken(admin, ['order.*']), 'order.search', { token_filter: [{ field: 'items.note', op: 'eq', value: 'NOTE_1' }] }),
    'token_filter must be an array': () => list({ token_filter: {} }),
    '<model>.<field> is not masked for you: filter it with filter': () => list({ token_filter: [{ field: 'title', op: 'eq', value: 'TITLE_1' }] }),
    '<model>.<field>: token_filter takes eq or in': () => t.command(agent, 'party.list', { token_filter: [{ field: 'name', op: 'ne', value: 'NAME_1' }] }),
    '<model>.<field>: token_filter takes masking tokens (<model>.<field> values you were given, such as the ones reads show you)': () =>
      t.command(agent, 'party.list', { token_filter: [{ field: 'name', op: 'eq', value: 'Ada' }] }),
    'filter must be an array': () => list({ filter: {} }),
    'filter may have at most 50 conditions': () => list({ filter: Array.from({ length: 51 }, () => ({ field: 'title', op: 'is_null' })) }),
    'filter condition must be an object': () => filter(1),
    'unknown key <key> in filter condition': () => filter({ field: 'title', op: 'eq', value: 'x', x: 1 }),
    'filter field must be a string': () => filter({ field: 5, op: 'eq', value: 'x' }),
    'unknown operator <op>': () => filter({ field: 'title', op: 'like', value: 'x' }),
    'filter op is missing: one of eq, ne, contains, in, gt, gte, lt, lte, is_null': () => filter({ field: 'title', value: 'x' }),
    '<model>.<field>: <op> needs a value (use is_null for empty values)': () => filter({ field: 'title', op: 'eq' }),
    '<model>.<field>: contains works on text fields only': () => filter({ field: 'hot', op: 'contains', value: 'x' }),
    '<model>.<field>: contains needs a string': () => filter({ field: 'title', op: 'contains', value: 1 }),
    '<model>.<field>: in needs an array of 1 to 1000 values': () => filter({ field: 'title', op: 'in', value: [] }),
    '<model>.<field>: in values cannot be empty (use is_null)': () => filter({ field: 'title', op: 'in', value: [null] }),
    '<model>.<field>: <op> is not allowed on <kind> fields': () => filter({ field: 'hot', op: 'gt', value: true }),
    '<model>.<field>: is_null takes true or false': () => filter({ field: 'title', op: 'is_null', value: 1 }),
    'order must be an array': () => list({ order: {} }),
    'order may have at most 5 keys': () => list({ order: ['a', 'b', 'c', 'd', 'e', 'f'].map((field) => ({ field })) }),
    'order key must be an object': () => list({ order: [1] }),
    'unknown key <key> in order key': () => list({ order: [{ field: 'title', x: 1 }] }),
    'order field must be a string': () => list({ order: [{ field: 5 }] }),
    'order dir must be asc or desc': () => list({ order: [{ field: 'title', dir: 'up' }] }),
    'limit must be an integer from 1 to 5000': () => list({ limit: 0 }),
    'offset must be an integer of 0 or more': () => list({ offset: -1 }),
    'after must be a string': () => list({ after: 5 }),
    'after must be "" or the next of the page before': () => list({ after: 'not-a-cursor' }),
    'after belongs to another order: keep the order of the page it came from': () => list({ order: [{ field: 'close_date' }], limit: 1, after: cursor }),
    'after and offset cannot be used together: after continues where the last page ended': () => list({ after: '', offset: 1 }),

    // Sign-in and agent tokens
    'request body must be a JSON object': () => login([]),
    '<key> is required': () => login({ username: 'admin' }),
    '<key> must be a string': () => login({ username: 5, password: 'x' }),
    '<key> must not be empty': () => login({ username: 'admin', password: '' }),
    '<key> must be at most <n> characters': () => newToken(admin, { scopes: ['lead.get'], label: 'x'.repeat(201) }),
    '<key> must be valid Unicode text': () => raw('/api/auth/agent-token', '{"scopes":["lead.get"],"label":"\\ud800"}', json),
    '<key> must not contain NUL characters': () => login({ username: 'adm\u0000in', password: 'x' }),
    'invalid username or password': () => login({ username: 'nobody', password: 'wrong-password' }),
    'too many failed sign-ins; try again in a minute': async () => {
      for (let i = 0; i < 5; i++) expect((await login({ username: 'locky', password: 'wrong-password' }, '198.51.100.2')).status).toBe(401);
      const res = await login({ username: 'locky', password: 'wrong-password' }, '198.51.100.2');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      return res;
    },
    'too many failed sign-ins from this address; try again in a minute': async () => {
      const address = '198.51.100.3';
      for (let i = 0; i < 30; i++) expect((await login({ username: `guess${i}`, password: 'wrong-password' }, address)).status).toBe(401);
      const res = await login({ username: 'guess-more', password: 'wrong-password' }, address);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      return res;
    },
    'scopes is required': () => newToken(admin, { label: 'x' }),
    'scopes must be an array of strings': () => newToken(admin, { scopes: 'lead.get', label: 'x' }),
    'scopes must not be empty': () => newToken(admin, { scopes: [], label: 'x' }),
    'scopes must have at most 100 entries': () => newToken(admin, { scopes: Array.from({ length: 101 }, () => 'lead.get'), label: 'x' }),
    'malformed scope "<scope>": use <model>.<command>, with * for a whole segment (lead.*, *.search)': () => newToken(admin, { scopes: ['lead'], label: 'x' }),
    'scope <scope> matches no command you may use': () => newToken(sales, { scopes: ['invoice.create'], label: 'x' }),
    'scope <scope> matches only commands no agent may use': () => newToken(admin, { scopes: ['party.get', 'party.erase'], label: 'x' }),
    'label must not be empty': () => newToken(admin, { scopes: ['lead.get'], label: '   ' }),
    'expires_in_days must be an integer from 1 to 365': () => newToken(admin, { scopes: ['lead.get'], label: 'x', expires_in_days: 0 }),
    'limits must be an object with requests_per_minute and/or writes_per_minute': () => newToken(admin, { scopes: ['lead.get'], label: 'x', limits: 5 }),
    'unknown key limits.<key> (use requests_per_minute, writes_per_minute)': () => newToken(admin, { scopes: ['lead.get'], label: 'x', limits: { x: 1 } }),
    'limits.<key> must be a whole number from 0 (unlimited) to 1000000': () => newToken(admin, { scopes: ['lead.get'], label: 'x', limits: { requests_per_minute: -1 } }),
    "limits.<key> may be at most <n>, the server's limit (only an admin may give a token more)": () =>
      newToken(sales, { scopes: ['lead.get'], label: 'x', limits: { requests_per_minute: 100_000 } }),

    // Bulk commands
    'records must be an array of 1 to 1000 records': () => t.command(admin, 'lead.create_many', { records: [] }),
    '<model>.<command> records[<i>].<rest>': () => t.command(admin, 'lead.create_many', { records: [{ title: 'ok' }, {}] }),
    '<model>.<command> records[<i>]: <error>': () => t.command(admin, 'lead.create_many', { records: [{ title: 'ok' }, 'x'] }),
    'unknown field <model>.<command> records[<i>].<field>': () => t.command(admin, 'lead.create_many', { records: [{ title: 'ok', nope: 1 }] }),
    '<model>.<command> needs a filter or ids': () => t.command(admin, 'lead.delete_many', { filter: [], max_affected: 1 }),
    '<model>.<command> takes a filter or ids, not both': () => t.command(admin, 'lead.delete_many', { filter: [{ field: 'hot', op: 'eq', value: true }], ids: [lead.id], max_affected: 1 }),
    'ids must be an array of 1 to 10000 record ids': () => t.command(admin, 'lead.delete_many', { ids: [], max_affected: 1 }),
    'ids[<i>] must be a string': () => t.command(admin, 'lead.delete_many', { ids: [lead.id, 5], max_affected: 2 }),
    'ids[<i>] is required': () => t.command(admin, 'lead.delete_many', { ids: [''], max_affected: 1 }),
    '<model>.<command> does not take <part>.<field>': () => t.command(admin, 'lead.lose_many', { ids: [lead.id], max_affected: 1, input: { lost_reason: 'x', title: 'y' } }),
    '<model>.<command> <part>: invalid token': () => t.command(agent, 'party.create_many', { records: [{ name: 'Fine' }, { name: 'NAME_999' }] }),
    'max_affected is required': () => t.command(admin, 'lead.delete_many', { ids: [lead.id] }),
    'set must be an object of field values': () => t.command(admin, 'lead.update_many', { ids: [lead.id], set: 5, max_affected: 1 }),
    '<model>.<command> set must give at least one field': () => t.command(admin, 'lead.update_many', { ids: [lead.id], set: {}, max_affected: 1 }),
    '<model>.<command> set cannot give id': () => t.command(admin, 'lead.update_many', { ids: [lead.id], set: { id: lead.id }, max_affected: 1 }),
    '<model>.<command> set.<rest>': () => t.command(admin, 'lead.update_many', { ids: [lead.id], set: { title: null }, max_affected: 1 }),
    'unknown field <model>.<command> set.<field>': () => t.command(admin, 'lead.update_many', { ids: [lead.id], set: { nope: 1 }, max_affected: 1 }),
    '<model>.<command> record <id>: <error>': () => t.command(admin, 'lead.update_many', { ids: ['01M8452PGTZ3QHM2AWMARJ1NTB'], set: { hot: true }, max_affected: 1 }),
    '<model>.<command> record <id>.<rest>': () => t.command(admin, 'lead.update_many', { ids: [lead.id], set: { stage: 'won' }, max_affected: 1 }),
    'dry_run must be true or false': () => t.command(admin, 'lead.create_many', { records: [{ title: 'ok' }], dry_run: 'yes' }),
    'dry_run=true in the query and "dry_run": false in the body disagree': () => t.request('POST', '/api/lead/create_many?dry_run=true', { records: [{ title: 'ok' }], dry_run: false }, admin),
    '<model>.<command> would change <n> records, more than max_affected <max>': () => t.command(admin, 'lead.delete_many', { ids: [lead.id, party.id], max_affected: 1 }),
    'batch_id is required': () => t.command(admin, 'lead.revert_batch', {}),
    'max_affected may be at most <n> for an agent': () => t.command(agent, 'lead.delete_many', { ids: [lead.id], max_affected: 101 }),
    '<model>.<command> may create at most <n> records for an agent': () => t.command(agent, 'lead.create_many', { records: Array.from({ length: 101 }, () => ({ title: 'x' })) }),
    "input must be an object of the action's inputs": () => t.command(admin, 'lead.lose_many', { ids: [lead.id], max_affected: 1, input: 'x' }),
    '<model>.<command> input.<rest>': () => t.command(admin, 'lead.lose_many', { ids: [lead.id], max_affected: 1 }),
    'max_affected must be an integer from 1 to 10000': () => t.command(admin, 'lead.delete_many', { ids: [lead.id], max_affected: 10_001 }),
    'label must not contain control characters or bidirectional overrides': () => newToken(sales, { scopes: ['lead.get'], label: '\u202Eevil' }),
    'max_affected may be at most 100 (only an admin may give a token more)': () => newToken(sales, { scopes: ['lead.get'], label: 'x', max_affected: 101 }),
    'max_affected is required (null for the default)': () => t.request('POST', '/api/auth/agent-token/update', { id: 'x' }, admin),
    'batch <batch_id> not found': () => t.command(admin, 'lead.revert_batch', { batch_id: 'NOPE' }),
    'batch <batch_id> cannot be reverted': async () => {
      const created = await ok(admin, 'lead.create_many', { records: [{ title: 'Doc bulk' }] });
      return t.command(admin, 'lead.revert_batch', { batch_id: created.batch_id });
    },

    // Plans and the audit trail
    'plan <plan_id> is already <status>': async () => {
      const proposed = await t.command(agent, 'lead.delete', { id: lead.id });
      expect(proposed.status).toBe(202);
      expect((await t.request('POST', `/api/reject/${proposed.body.plan_id}`, undefined, admin)).status).toBe(200);
      return t.request('POST', `/api/reject/${proposed.body.plan_id}`, undefined, admin);
    },
    'plan <plan_id> cannot be approved: its agent token was revoked': async () => {
      const bot = await newToken(admin, { scopes: ['lead.delete'], label: 'revoked in the row only' });
      const proposed = await t.command(bot.body.token, 'lead.delete', { id: lead.id });
      expect(proposed.status).toBe(202);
      // As a database from before revoking rejected a token's plans left it: the token revoked, its plan pending.
      const revokedAt = new Date().toISOString();
      await t.execute({ sqlite: `update rms_tokens set revoked_at = '${revokedAt}' where id = '${bot.body.id}'`, postgres: `update rms_tokens set revoked_at = '${revokedAt}' where id = '${bot.body.id}'` });
      return t.request('POST', `/api/approve/${proposed.body.plan_id}`, undefined, admin);
    },
    'plan <plan_id> cannot be approved while <username>, who made its agent token, is disabled': async () => {
      const person = await t.addPerson('dora', ['sales']);
      const bot = await newToken(person, { scopes: ['lead.delete'], label: 'maker disabled' });
      const proposed = await t.command(bot.body.token, 'lead.delete', { id: lead.id });
      expect(proposed.status).toBe(202);
      await t.execute({ sqlite: `update rms_people set disabled = 1 where username = 'dora'`, postgres: `update rms_people set disabled = true where username = 'dora'` });
      return t.request('POST', `/api/approve/${proposed.body.plan_id}`, undefined, admin);
    },
    'plan <plan_id> cannot be approved: its agent token has expired': async () => {
      const bot = await newToken(admin, { scopes: ['lead.delete'], label: 'expired with its plan pending' });
      const proposed = await t.command(bot.body.token, 'lead.delete', { id: lead.id });
      expect(proposed.status).toBe(202);
      const past = new Date(Date.now() - 1000).toISOString();
      await t.execute({ sqlite: `update rms_tokens set expires_at = '${past}' where id = '${bot.body.id}'`, postgres: `update rms_tokens set expires_at = '${past}' where id = '${bot.body.id}'` });
      return t.request('POST', `/api/approve/${proposed.body.plan_id}`, undefined, admin);
    },
    'plan <plan_id> cannot be approved: its agent may no longer run <command>': async () => {
      const person = await t.addPerson('demi', ['sales']);
      const bot = await newToken(person, { scopes: ['lead.delete'], label: 'maker demoted' });
      const proposed = await t.command(bot.body.token, 'lead.delete', { id: lead.id });
      expect(proposed.status).toBe(202);
      await t.execute({ sqlite: `update rms_people set roles = '["accountant"]' where username = 'demi'`, postgres: `update rms_people set roles = '["accountant"]' where username = 'demi'` });
      return t.request('POST', `/api/approve/${proposed.body.plan_id}`, undefined, admin);
    },
    'POST /api/<decision>/<plan_id> takes no dry_run: a plan is approved or rejected for real': async () => {
      const proposed = await t.command(agent, 'lead.delete', { id: lead.id });
      expect(proposed.status).toBe(202);
      return t.request('POST', `/api/approve/${proposed.body.plan_id}?dry_run=true`, undefined, admin);
    },
    'change_id must be at most 64 characters': () => t.command(admin, 'lead.revert', { id: lead.id, change_id: 'c'.repeat(65) }),
    'change_id must not contain NUL characters': () => t.command(admin, 'lead.revert', { id: lead.id, change_id: 'c\u0000' }),
    '<key> must be given once': () => audit('limit=1&limit=2'),
    '<key> must be JSON': () => audit('filter=not-json'),
    // Webhooks
    '<command> takes no <key> (it takes <keys>)': () => hook('list', { all: true }),
    'url is required: the http or https URL events are sent to': () => hook('create', { as_role: 'sales' }),
    'url must be an absolute http or https URL': () => hook('create', { url: 'example.com/hook', as_role: 'sales' }),
    'url must be an http or https URL, not <scheme>': () => hook('create', { url: 'ftp://example.com/hook', as_role: 'sales' }),
    'url must be a string: the http or https URL events are sent to': () => hook('create', { url: 42, as_role: 'sales' }),
    'url must be at most 2048 characters': () => hook('create', { url: `${PUBLIC_HOOK}${'a'.repeat(2048)}`, as_role: 'sales' }),
    'url must not contain spaces, backslashes or control characters (percent-encode them)': () => hook('create', { url: `${PUBLIC_HOOK} `, as_role: 'sales' }),
    'url must be an absolute http or https URL (http://host/…)': () => hook('create', { url: 'https:93.184.215.14/hook', as_role: 'sales' }),
    'url must not have port 0': () => hook('create', { url: 'https://93.184.215.14:0/hook', as_role: 'sales' }),
    'as_role must be a string: the role whose field rights shape what is sent': () => hook('create', { url: PUBLIC_HOOK, as_role: ['sales'] }),
    "the webhook's commands[<i>]: no <models> has a command <name> that changes records (give commands with the models)": async () => {
      const made = await hook('create', { url: PUBLIC_HOOK, as_role: 'sales', models: ['lead'], commands: ['win'] });
      expect(made.status, JSON.stringify(made.body)).toBe(200);
      try {
        return await hook('update', { id: made.body.value.id, models: ['party'] });
      } finally {
        await hook('delete', { id: made.body.value.id });
      }
    },
    'webhook.update has nothing to change: give one or more of url, models, commands, as_role, secret, secrets, rotate': () => withWebhook((id) => hook('update', { id })),
    'url must not carry a user name or password (the secret signs each request)': () => hook('create', { url: 'https://me:pw@93.184.215.14/', as_role: 'sales' }),
    'url: <host> is a loopback, private or reserved address, which webhooks may not reach (serve --allow-private-webhooks allows it)': () =>
      hook('create', { url: 'http://169.254.169.254/latest/meta-data', as_role: 'sales' }),
    'url: the host <host> does not resolve': () => hook('create', { url: 'https://no-such-host.invalid/hook', as_role: 'sales' }),
    'as_role is required: the role whose field rights shape what is sent': () => hook('create', { url: PUBLIC_HOOK }),
    'as_role: no role named <role> (the roles: <roles>)': () => hook('create', { url: PUBLIC_HOOK, as_role: 'boss' }),
    '<key> must be a list of <what>, or null for all': () => hook('create', { url: PUBLIC_HOOK, as_role: 'sales', models: 'lead' }),
    '<key> must name at least one (leave it out, or null, for all)': () => hook('create', { url: PUBLIC_HOOK, as_role: 'sales', commands: [] }),
    '<key>[<i>] must be a non-empty string': () => hook('create', { url: PUBLIC_HOOK, as_role: 'sales', models: [''] }),
    '<key>[<i>]: <name> is named twice': () => hook('create', { url: PUBLIC_HOOK, as_role: 'sales', models: ['lead', 'lead'] }),
    'models[<i>]: no model named <model>': () => hook('create', { url: PUBLIC_HOOK, as_role: 'sales', models: ['ledger'] }),
    'commands[<i>]: no <models> has a command <name> that changes records': () => hook('create', { url: PUBLIC_HOOK, as_role: 'sales', models: ['party'], commands: ['win'] }),
    'give secret or secrets, not both': () => hook('create', { url: PUBLIC_HOOK, as_role: 'sales', secret: SECRET, secrets: [SECRET] }),
    '<key> must be a string: whsec_ and the base64 of 24 to 64 random bytes': () => hook('create', { url: PUBLIC_HOOK, as_role: 'sales', secret: 42 }),
    '<key> must start with whsec_ (a Standard Webhooks secret: whsec_ and the base64 of 24 to 64 random bytes)': () =>
      hook('create', { url: PUBLIC_HOOK, as_role: 'sales', secret: 'sk_live_abc' }),
    '<key> must be whsec_ followed by base64': () => hook('create', { url: PUBLIC_HOOK, as_role: 'sales', secret: 'whsec_not base64' }),
    '<key> must hold 24 to 64 bytes, not <n>': () => hook('create', { url: PUBLIC_HOOK, as_role: 'sales', secrets: ['whsec_' + Buffer.alloc(16).toString('base64')] }),
    'secrets must be a list of one or two secrets (the old and the new while rotating)': () => hook('create', { url: PUBLIC_HOOK, as_role: 'sales', secrets: [SECRET, SECRET, SECRET] }),
    'secrets[1] is the same as secrets[0]': () => hook('create', { url: PUBLIC_HOOK, as_role: 'sales', secrets: [SECRET, SECRET] }),
    "id is required: the webhook's id": () => hook('get', {}),
    'webhook <id> not found': () => hook('get', { id: 'W1' }),
    'webhook.deliveries status must be pending, delivered or dead': () => withWebhook((id) => hook('deliveries', { id, status: 'failed' })),
    '<command> <key> must be a whole number from <min> to <max>': () => withWebhook((id) => hook('deliveries', { id, limit: 0 })),
    '<command> <key> must be a non-empty string': () => withWebhook((id) => hook('deliveries', { id, event_id: '' })),
    'webhook.redeliver dead must be true (or left out)': () => withWebhook((id) => hook('redeliver', { id, dead: false })),
    'webhook.redeliver takes event_id (one event) or dead: true (every dead one)': () => withWebhook((id) => hook('redeliver', { id })),
    'webhook.redeliver event_id: no event <event_id> was sent to webhook <id>': () => withWebhook((id) => hook('redeliver', { id, event_id: 'E1' })),
    'webhook.update takes rotate or secret(s), not both': () => withWebhook((id) => hook('update', { id, rotate: 'add', secret: SECRET })),
    'rotate must be add (a new secret besides the current one) or drop_old (keep only the newer one)': () => withWebhook((id) => hook('update', { id, rotate: 'swap' })),
    'rotate: add needs one secret, and the webhook has two: drop the old one first (rotate: drop_old)': () =>
      withWebhook(async (id) => {
        expect((await hook('update', { id, rotate: 'add' })).status).toBe(200);
        return hook('update', { id, rotate: 'add' });
      }),
    'rotate: drop_old needs two secrets, and the webhook has one': () => withWebhook((id) => hook('update', { id, rotate: 'drop_old' })),
  };

  it('the page has error tables', () => {
    expect(ERRORS.length).toBeGreaterThan(60);
  });

  // Hundreds of errors provoked one after the other over HTTP: seconds on an idle machine, more on a busy one.
  it('every documented error is answered with its status and text by the running server', async () => {
    const checked: string[] = [];
    for (const { status, template } of ERRORS) {
      if (SOURCE_ONLY.has(template) || HISTORY_TEMPLATES.has(template)) continue;
      const provoke = provocations[template];
      expect.soft(provoke, `a way to provoke "${template}"`).toBeDefined();
      if (!provoke) continue;
      const res = await provoke();
      expect.soft({ status: res.status, error: res.body?.error }, template).toEqual({ status, error: expect.stringMatching(templatePattern(template)) });
      if (res.status === 401) expect.soft(res.headers.get('www-authenticate'), template).toMatch(/^Bearer/);
      checked.push(template);
    }
    expect(checked.length).toBeGreaterThan(60);
  }, 120_000);

  it('every provocation here is of an error the page documents', () => {
    const documented = new Set(ERRORS.map((error) => error.template));
    for (const template of Object.keys(provocations)) expect(documented.has(template), template).toBe(true);
  });

  it('errors no client provokes on purpose are in the runtime sources', () => {
    const sources = runtimeSources();
    for (const template of SOURCE_ONLY) {
      expect(ERRORS.some((error) => error.template === template)).toBe(true);
      for (const part of template.split(/<[a-z_]+>/).filter((piece) => piece.trim() !== '')) expect(sources, template).toContain(part);
    }
  });

  it('every {"error": …} the prose quotes is a documented error', () => {
    const quoted = [...DOC.matchAll(/\{"error":\s*"((?:[^"\\]|\\.)*)"\}/g)].map((match) => JSON.parse(`"${match[1]}"`) as string)
      .filter((text) => !/^<[a-z_]+>$/.test(text)); // `{"error": "<text>"}`: the shape, not a text
    expect(quoted.length).toBeGreaterThan(10);
    for (const text of quoted) {
      expect(
        ERRORS.some((error) => templatePattern(error.template).test(text)),
        text,
      ).toBe(true);
    }
  });

  it('MCP answers each documented error with its HTTP status, JSON-RPC code and message', async () => {
    expect(MCP_ERRORS.length).toBeGreaterThan(5);
    const limited = await agentToken(admin, ['lead.*'], { limits: { requests_per_minute: 1 } });
    const mcp = (token: string | undefined, init: { method?: string; accept?: string; contentType?: string; body?: unknown } = {}) =>
      fetch(`${t.url}/mcp`, {
        method: init.method ?? 'POST',
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          accept: init.accept ?? 'application/json, text/event-stream',
          'content-type': init.contentType ?? 'application/json',
          'mcp-protocol-version': '2025-06-18',
        },
        ...(init.method === 'GET' ? {} : { body: JSON.stringify(init.body ?? { jsonrpc: '2.0', id: 1, method: 'tools/list' }) }),
      });
    const call = (name: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });
    const provocations: Record<string, () => Promise<Response>> = {
      'Unknown tool: <name>': () => mcp(agent, { body: call('invoice__post') }),
      'missing bearer token': () => mcp(undefined),
      'invalid or expired token': () => mcp(`rms_a_${'A'.repeat(43)}`),
      'Method Not Allowed: use POST': async () => {
        const res = await mcp(agent, { method: 'GET' });
        expect(res.headers.get('allow')).toBe('POST');
        return res;
      },
      'Not Acceptable: Client must accept both application/json and text/event-stream': () => mcp(agent, { accept: 'application/json' }),
      'Unsupported Media Type: Content-Type must be application/json': () => mcp(agent, { contentType: 'text/plain' }),
      'Unsupported Media Type: Content-Type charset must be utf-8': () => mcp(agent, { contentType: 'application/json; charset=utf-16' }),
      'Invalid Request: not a JSON-RPC 2.0 request, notification or response': () => mcp(agent, { body: { jsonrpc: '1.0', id: 1, method: 'ping' } }),
      'Invalid Request: /mcp takes no dry_run; a bulk tool takes "dry_run": true in its arguments': () =>
        fetch(`${t.url}/mcp?dry_run=true`, {
          method: 'POST',
          headers: { authorization: `Bearer ${agent}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        }),
      'rate limit exceeded': async () => {
        // As over REST: of four calls in a row at least two share a window.
        let res: Response | undefined;
        for (let i = 0; i < 4 && res?.status !== 429; i++) {
          await res?.body?.cancel();
          res = await mcp(limited);
        }
        return res!;
      },
    };
    for (const { status, code: rpcCode, message } of MCP_ERRORS) {
      const provoke = provocations[message];
      expect(provoke, `a way to provoke "${message}"`).toBeDefined();
      const res = await provoke!();
      const body = (await res.json()) as { error?: { code: number; message: string } };
      expect({ status: res.status, code: body.error?.code, message: body.error?.message }, message).toEqual({
        status,
        code: rpcCode,
        message: expect.stringMatching(templatePattern(message)),
      });
    }
  });

  it('MCP tools are the commands, named <model>__<command>', async () => {
    const commands = (await t.request('GET', '/api/commands', undefined, agent)).body.commands as { id: string }[];
    const res = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const tools = ((await res.json()) as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name);
    expect(tools.sort()).toEqual(commands.map((command) => command.id.replace('.', '__')).sort());
  });
});

// ---------------------------------------------------------------------------------------------
// Record history (skipped until the registry has the commands)

describe.skipIf(!HAS_HISTORY)('record history as documented', () => {
  interface Entry {
    change_id: string;
    at: string;
    command: string;
    by: { kind: string; username: string; agent_label: string | null };
    plan_id: string | null;
    reverts?: string;
    changes: Record<string, { from: unknown; to: unknown }>;
  }
  const history = async (id: string): Promise<Entry[]> => (await ok(admin, 'lead.history', { id })).rows;
  const revert = (id: string, changeId: string, token = admin) => t.command(token, 'lead.revert', { id, change_id: changeId });

  it('lists changes newest first, reverts an update, and refuses what the page says', async () => {
    const lead = await ok(admin, 'lead.create', { title: 'History one' });
    const other = await ok(admin, 'lead.create', { title: 'History two' });
    await ok(admin, 'lead.update', { id: lead.id, title: 'History one, renamed' });
    const [update, created] = await history(lead.id);
    expect(created!.command).toBe('lead.create');
    expect(update).toMatchObject({
      command: 'lead.update',
      by: { kind: 'person', username: 'admin', agent_label: null },
      plan_id: null,
      changes: { title: { from: 'History one', to: 'History one, renamed' } },
    });
    expect(update!.at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const checked = new Set<string>();
    const expectError = async (res: TestResponse, template: string) => {
      const documented = ERRORS.find((error) => error.template === template);
      expect(documented, template).toBeDefined();
      expect({ status: res.status, error: res.body?.error }, template).toEqual({ status: documented!.status, error: expect.stringMatching(templatePattern(template)) });
      checked.add(template);
    };
    await expectError(await t.command(admin, 'lead.revert', { id: lead.id }), 'change_id is required');
    await expectError(await t.command(admin, 'lead.revert', { id: lead.id, change_id: 5 }), 'change_id must be a string');
    await expectError(await revert(lead.id, created!.change_id), 'change <change_id> cannot be reverted');
    // `sales` may update parties but not read their tax ids: an update of one is not theirs to revert.
    const party = await ok(admin, 'party.create', { name: 'History party' });
    await ok(admin, 'party.update', { id: party.id, tax_id: 'HIST-1' });
    const [taxUpdate] = (await ok(admin, 'party.history', { id: party.id })).rows as Entry[];
    // A change of only a field the caller may not read does not exist for it.
    await expectError(await t.command(sales, 'party.revert', { id: party.id, change_id: taxUpdate!.change_id }), 'change <change_id> not found');
    await expectError(await revert(lead.id, 'no-such-change'), 'change <change_id> not found');
    await expectError(await revert(other.id, update!.change_id), 'change <change_id> not found');

    // An agent's revert is a plan.
    const bot = await agentToken(admin, ['lead.*']);
    expect((await revert(lead.id, update!.change_id, bot)).status).toBe(202);

    const reverted = await revert(lead.id, update!.change_id);
    expect(reverted.status).toBe(200);
    expect(reverted.body.value.title).toBe('History one');
    const [latest] = await history(lead.id);
    expect(latest!.reverts).toBe(update!.change_id);

    await ok(admin, 'lead.update', { id: lead.id, title: 'History one, again' });
    await expectError(await revert(lead.id, update!.change_id), '<model> <id> changed since change <change_id>');
    expect([...checked].sort()).toEqual([...HISTORY_TEMPLATES].sort());

    // A deleted record's history is still there.
    await ok(admin, 'lead.delete', { id: other.id });
    expect((await history(other.id)).length).toBeGreaterThan(1);
  });
});

function runtimeSources(): string {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.push(readFileSync(path, 'utf8'));
    }
  };
  walk(join(ROOT, 'runtime'));
  return files.join('\n');
}
