/**
 * People's rights: roles decide which commands a person may use (others are the same 404 as an
 * unknown command) and which fields they read (others are absent, named in `denied`, and cannot
 * be filtered, ordered or written).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../fixtures/generated/registry.ts';
import type { PersonCaller } from '../../runtime/caller.ts';
import type { Registry } from '../../runtime/registry.ts';
import { allowedCommands, fieldRights, rightsOf } from '../../runtime/rights.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** The fixture registry plus a role that may update leads but run none of their actions. */
const withClerk: Registry = { ...registry, roles: { ...registry.roles, clerk: ['lead.get', 'lead.list', 'lead.create', 'lead.update'] } };

let srv: TestServer;
let admin: string;
let sales: string;
let accountant: string;
let clerk: string;
let party: string;

beforeAll(async () => {
  srv = await startTestServer({ registry: withClerk });
  admin = await srv.login();
  [sales, accountant, clerk] = await Promise.all([srv.addPerson('sally', ['sales']), srv.addPerson('anna', ['accountant']), srv.addPerson('clem', ['clerk'])]);
  const res = await srv.command(admin, 'party.create', { name: 'ACME', tax_id: 'DE123', kind: 'company' });
  party = res.body.value.id;
});
afterAll(() => srv?.close());

describe('commands a person may use', () => {
  it('answers 404 not found for a command the role lacks, exactly as for an unknown one', async () => {
    const forbidden = await srv.command(accountant, 'lead.create', { title: 'x' });
    const unknown = await srv.command(accountant, 'lead.frobnicate', { title: 'x' });
    const unknownModel = await srv.command(accountant, 'boat.get', { id: 'x' });
    for (const res of [forbidden, unknown, unknownModel]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'not found' });
    }
    expect(forbidden.headers.get('content-length')).toBe(unknown.headers.get('content-length'));
    expect(forbidden.headers.get('content-type')).toBe(unknown.headers.get('content-type'));
  });

  it('answers 404 before looking at the input', async () => {
    expect((await srv.command(accountant, 'lead.delete', 'not json at all')).status).toBe(400); // body parsing comes first
    expect((await srv.command(accountant, 'lead.delete', [])).status).toBe(404);
    expect((await srv.command(accountant, 'lead.delete', {})).status).toBe(404);
  });

  it('lets each role use its commands', async () => {
    expect((await srv.command(accountant, 'lead.list', {})).status).toBe(200);
    expect((await srv.command(accountant, 'invoice.create', { number: 'A-1', party, amount: 5, issue_date: '2025-01-01' })).status).toBe(200);
    expect((await srv.command(sales, 'invoice.create', { number: 'A-2', party, amount: 5, issue_date: '2025-01-01' })).status).toBe(404);
    expect((await srv.command(sales, 'lead.create', { title: 'x' })).status).toBe(200);
    expect((await srv.command(accountant, 'party.delete', { id: party })).status).toBe(404);
  });

  it('an update of a governed field needs the right to run the matching action', async () => {
    const lead = (await srv.command(clerk, 'lead.create', { title: 'Deal' })).body.value.id;
    expect((await srv.command(clerk, 'lead.qualify', { id: lead })).status).toBe(404);
    const res = await srv.command(clerk, 'lead.update', { id: lead, stage: 'qualified' });
    expect(res.body).toEqual({ error: 'lead.stage cannot move from new to qualified' });
    expect(res.status).toBe(400);
    expect((await srv.command(sales, 'lead.update', { id: lead, stage: 'qualified' })).body.value.stage).toBe('qualified');
  });
});

describe('fields a person reads', () => {
  it('withholds unreadable fields and names them in denied', async () => {
    const res = await srv.command(sales, 'party.get', { id: party });
    expect(res.status).toBe(200);
    expect(res.body.denied).toEqual(['party.tax_id']);
    expect(res.body.value).toEqual({ id: party, name: 'ACME', email: null, phone: null, kind: 'company', notes: null });
    expect('tax_id' in res.body.value).toBe(false);
  });

  it('withholds them in list and search rows too', async () => {
    const listed = await srv.command(sales, 'party.list', {});
    expect(listed.body.denied).toEqual(['party.tax_id']);
    expect(listed.body.value.every((row: object) => !('tax_id' in row))).toBe(true);
    const searched = await srv.command(sales, 'party.search', {});
    expect(searched.body.denied).toEqual(['party.tax_id']);
    expect(searched.body.value.rows.every((row: object) => !('tax_id' in row))).toBe(true);
    const created = await srv.command(sales, 'party.create', { name: 'New' });
    expect(created.body).toEqual({ denied: ['party.tax_id'], value: expect.not.objectContaining({ tax_id: null }) });
  });

  it('shows them to roles that read them', async () => {
    for (const token of [admin, accountant]) {
      const res = await srv.command(token, 'party.get', { id: party });
      expect(res.body.denied).toEqual([]);
      expect(res.body.value.tax_id).toBe('DE123');
    }
  });

  it('refuses filtering, ordering and writing an unreadable field as an unknown field', async () => {
    const message = { error: 'unknown field party.tax_id' };
    const filtered = await srv.command(sales, 'party.list', { filter: [{ field: 'tax_id', op: 'eq', value: 'DE123' }] });
    expect([filtered.status, filtered.body]).toEqual([400, message]);
    const ordered = await srv.command(sales, 'party.search', { order: [{ field: 'tax_id' }] });
    expect([ordered.status, ordered.body]).toEqual([400, message]);
    const created = await srv.command(sales, 'party.create', { name: 'X', tax_id: 'FR1' });
    expect([created.status, created.body]).toEqual([400, message]);
    const updated = await srv.command(sales, 'party.update', { id: party, tax_id: null });
    expect([updated.status, updated.body]).toEqual([400, message]);
    expect(srv.inspect((db) => db.prepare('select tax_id from party where id = ?').get(party))).toEqual({ tax_id: 'DE123' });
    const allowed = await srv.command(accountant, 'party.list', { filter: [{ field: 'tax_id', op: 'eq', value: 'DE123' }] });
    expect(allowed.body.value).toHaveLength(1);
  });
});

describe('compiled rights (table tests)', () => {
  const person = (roles: string[]): PersonCaller => ({ kind: 'person', userId: 'u', username: 'u', roles, tokenId: 't' });

  it('unions the commands of every role', () => {
    const both = allowedCommands(registry, person(['sales', 'accountant']));
    expect(both.has('invoice.post')).toBe(true);
    expect(both.has('lead.win')).toBe(true);
    expect(allowedCommands(registry, person(['nobody'])).size).toBe(0);
    expect(allowedCommands(registry, person(['admin'])).size).toBe(Object.keys(registry.commands).length);
  });

  it('reads a field with readRoles only with one of those roles or admin', () => {
    expect(fieldRights(registry, person(['sales']), 'party').denied).toEqual(['party.tax_id']);
    expect(fieldRights(registry, person(['sales', 'accountant']), 'party').denied).toEqual([]);
    expect(fieldRights(registry, person(['admin']), 'party').denied).toEqual([]);
  });

  it('cuts an agent down to its scopes, its creator, hidden and personal fields', () => {
    const agent = (creatorRoles: string[], scopes: string[]) => ({
      kind: 'agent' as const,
      tokenId: 'a',
      label: 'bot',
      scopes,
      creatorId: 'u',
      creatorUsername: 'u',
      creatorRoles,
      limits: { requestsPerMinute: null, writesPerMinute: null },
    });
    expect([...allowedCommands(registry, agent(['sales'], ['lead.*', 'party.get']))].sort()).toEqual(
      [
        ...['create', 'delete', 'get', 'list', 'lose', 'qualify', 'search', 'update', 'win', 'history', 'revert'].map((c) => `lead.${c}`),
        ...['create_many', 'update_many', 'delete_many', 'qualify_many', 'win_many', 'lose_many'].map((c) => `lead.${c}`),
        'party.get',
        'party.history',
      ].sort(),
    );
    expect([...allowedCommands(registry, agent(['sales'], ['invoice.post']))]).toEqual([]);
    // History comes with get and revert with update, never beyond the creator's rights.
    expect([...allowedCommands(registry, agent(['accountant'], ['lead.get', 'lead.update', 'party.update']))].sort()).toEqual(
      ['lead.get', 'lead.history', 'party.revert', 'party.update', 'party.update_many'],
    );
    expect([...allowedCommands(registry, agent(['sales'], ['lead.history']))]).toEqual(['lead.history']);
    // An action brings its bulk command; the bulk command alone is only itself.
    expect([...allowedCommands(registry, agent(['sales'], ['lead.qualify']))].sort()).toEqual(['lead.qualify', 'lead.qualify_many']);
    expect([...allowedCommands(registry, agent(['sales'], ['lead.qualify_many']))]).toEqual(['lead.qualify_many']);
    expect([...allowedCommands(registry, agent(['accountant'], ['lead.qualify']))]).toEqual([]);
    const party = fieldRights(registry, agent(['admin'], ['*.*']), 'party');
    expect(party.denied).toEqual(['party.tax_id']);
    expect(party.masked.map((field) => field.name)).toEqual(['name', 'email', 'phone', 'notes']);
    expect([...party.clearNames]).toEqual(['kind']);
    expect(fieldRights(registry, agent(['admin'], ['*.*']), 'invoice').denied).toEqual(['invoice.internal_note']);
  });

  it('compiles each role set once', () => {
    expect(rightsOf(registry, person(['sales', 'accountant']))).toBe(rightsOf(registry, person(['accountant', 'sales'])));
  });
});
