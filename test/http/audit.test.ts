/**
 * What `GET /api/audit` tells an admin besides the stored row: whether the call read or changed
 * records (`access`, filterable), and the record's title as it is now (`record_title`), never a
 * personal one.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
});

afterAll(async () => {
  await t?.close();
});

const audit = async (filter: unknown[]) => {
  const res = await t.request('GET', `/api/audit?filter=${encodeURIComponent(JSON.stringify(filter))}&order=${encodeURIComponent(JSON.stringify([{ field: 'id', dir: 'asc' }]))}`, undefined, admin);
  expect(res.status).toBe(200);
  return res.body.rows as { command: string; access: string; record_id: string | null; record_title: string | null }[];
};

it('tells reads from changes, and filters on it', async () => {
  const lead = (await t.command(admin, 'lead.create', { title: 'Audited deal' })).body.value.id;
  await t.command(admin, 'lead.get', { id: lead });
  await t.command(admin, 'lead.search', { filter: [{ field: 'id', op: 'eq', value: lead }] });
  await t.command(admin, 'lead.qualify', { id: lead });
  const rows = await audit([{ field: 'record_id', op: 'eq', value: lead }]);
  expect(rows.map((row) => [row.command, row.access])).toEqual([
    ['lead.create', 'write'],
    ['lead.get', 'read'],
    ['lead.qualify', 'write'],
  ]);
  const changes = await audit([{ field: 'access', op: 'eq', value: 'write' }, { field: 'command', op: 'contains', value: 'lead.' }]);
  expect(changes.every((row) => row.access === 'write')).toBe(true);
  expect(changes.map((row) => row.command)).toEqual(expect.arrayContaining(['lead.create', 'lead.qualify']));
});

it('names records by their title as it is now, not when the title field is personal', async () => {
  const lead = (await t.command(admin, 'lead.create', { title: 'First title' })).body.value.id;
  await t.command(admin, 'lead.update', { id: lead, title: 'Renamed deal' });
  const party = (await t.command(admin, 'party.create', { name: 'Personal Name' })).body.value.id;
  const rows = await audit([{ field: 'record_id', op: 'in', value: [lead, party] }]);
  expect(rows.filter((row) => row.record_id === lead).map((row) => row.record_title)).toEqual(['Renamed deal', 'Renamed deal']);
  expect(rows.find((row) => row.record_id === party)?.record_title).toBeNull();
  await t.command(admin, 'lead.delete', { id: lead });
  const after = await audit([{ field: 'record_id', op: 'eq', value: lead }]);
  expect(after.map((row) => row.record_title)).toEqual([null, null, null]);
});

it('refuses a keyset cursor, which the trail does not page by', async () => {
  const res = await t.request('GET', '/api/audit?after=', undefined, admin);
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ error: 'unknown key after' });
});

it('filters on when as on a datetime: the same instant with any offset, in time order; a value that is no instant refused', async () => {
  const lead = (await t.command(admin, 'lead.create', { title: 'Audited when' })).body.value.id as string;
  const [row] = (await audit([{ field: 'record_id', op: 'eq', value: lead }])) as unknown as { at: string }[];
  const at = new Date(row!.at);
  const later = new Date(at.getTime() + 1);
  // The same instants written with an offset of +01:00.
  const plusOne = (instant: Date) => `${new Date(instant.getTime() + 3_600_000).toISOString().slice(0, 23)}+01:00`;
  for (const [filter, found] of [
    [{ field: 'at', op: 'gte', value: row!.at }, 1],
    [{ field: 'at', op: 'gte', value: plusOne(at) }, 1],
    [{ field: 'at', op: 'eq', value: plusOne(at) }, 1],
    [{ field: 'at', op: 'gte', value: plusOne(later) }, 0],
    [{ field: 'at', op: 'lt', value: plusOne(later) }, 1],
  ] as const) {
    expect((await audit([{ field: 'record_id', op: 'eq', value: lead }, filter])).length, JSON.stringify(filter)).toBe(found);
  }
  for (const [filter, error] of [
    [{ field: 'at', op: 'gte', value: 'notadate' }, 'audit.at must be a date and time in ISO 8601 with an offset, such as 2026-11-26T14:30:00Z'],
    [{ field: 'at', op: 'gte', value: '2026-11-28' }, 'audit.at must be a date and time in ISO 8601 with an offset, such as 2026-11-26T14:30:00Z'],
    [{ field: 'at', op: 'gte', value: '2026-02-30T00:00:00Z' }, 'audit.at must be a date and time in ISO 8601 with an offset, such as 2026-11-26T14:30:00Z'],
  ] as const) {
    const res = await t.request('GET', `/api/audit?filter=${encodeURIComponent(JSON.stringify([filter]))}`, undefined, admin);
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error } });
  }
  const contains = await t.request('GET', `/api/audit?filter=${encodeURIComponent(JSON.stringify([{ field: 'at', op: 'contains', value: '2026' }]))}`, undefined, admin);
  expect(contains.status).toBe(400);
});

it('keeps the record a call refused for its input named, when the id is well formed, but not the unchecked input', async () => {
  const lead = (await t.command(admin, 'lead.create', { title: 'Refused changes' })).body.value.id;
  const refusals: [string, unknown, number, string][] = [
    ['lead.update', { id: lead, stage: 'nowhere' }, 400, ''],
    ['lead.update', { id: lead, extra: 1 }, 400, 'unknown field lead.extra'],
    ['lead.qualify', { id: lead, what: true }, 400, 'unknown field lead.what'],
    ['lead.get', { id: lead, x: 1 }, 400, 'unknown field lead.x'],
    ['lead.history', { id: lead, limit: -1 }, 400, ''],
    ['lead.revert', { id: lead }, 400, 'change_id is required'],
    ['lead.delete', { id: lead, why: 'no' }, 400, 'unknown field lead.why'],
  ];
  for (const [command, input, status, error] of refusals) {
    const res = await t.command(admin, command, input);
    expect(res.status, command).toBe(status);
    if (error) expect(res.body.error).toBe(error);
  }
  const rows = (await t.request('GET', `/api/audit?filter=${encodeURIComponent(JSON.stringify([{ field: 'record_id', op: 'eq', value: lead }, { field: 'outcome', op: 'eq', value: 'refused' }]))}&order=${encodeURIComponent(JSON.stringify([{ field: 'id', dir: 'asc' }]))}`, undefined, admin)).body.rows as { command: string; record_id: string; status: number; input: unknown }[];
  expect(rows.map((row) => [row.command, row.status, row.input])).toEqual(refusals.map(([command, , status]) => [command, status, null]));
  // An id that is no id names nothing; a command that takes none (create, list) names nothing either.
  const before = await t.inspect((db) => (db.prepare("select count(*) as n from rms_audit where outcome = 'refused' and record_id is not null").get() as { n: number }).n);
  expect((await t.command(admin, 'lead.get', { id: 'x'.repeat(65) })).status).toBe(400);
  expect((await t.command(admin, 'lead.get', { id: 'a\u0000b' })).status).toBe(400);
  expect((await t.command(admin, 'lead.get', { id: 42 })).status).toBe(400);
  expect((await t.command(admin, 'lead.create', { id: lead, title: 'x' })).status).toBe(400);
  expect((await t.command(admin, 'lead.list', { id: lead })).status).toBe(400);
  const after = await t.inspect((db) => (db.prepare("select count(*) as n from rms_audit where outcome = 'refused' and record_id is not null").get() as { n: number }).n);
  expect(after).toBe(before);
});
