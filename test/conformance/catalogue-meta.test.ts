/**
 * Conformance: the command catalogue and model metadata, `GET /api/commands` and `GET /api/meta`
 * (SPEC 2.5 / 4.1).
 * Black-box, from SPEC and the issue texts only; see ../helpers/conformance.ts for what this suite is and its
 * conventions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';
import { findAll, type Rec } from '../helpers/conformance.ts';

// one server for this file, signed in as admin
let s: TestServer;
let admin: string;

beforeAll(async () => {
  s = await startTestServer();
  admin = await s.login();
});
afterAll(async () => {
  await s?.close();
});

describe('SPEC 2.5 / 4.1: GET /api/commands and GET /api/meta', () => {
  const BULK_IDS = [
    ...['party', 'lead', 'invoice', 'order'].flatMap((m) => ['create_many', 'update_many', 'delete_many', 'revert_batch'].map((c) => `${m}.${c}`)),
    // Each action's bulk command.
    ...['lead.qualify', 'lead.win', 'lead.lose', 'invoice.post', 'invoice.pay', 'invoice.cancel', 'order.confirm', 'order.cancel', 'order.deliver'].map((id) => `${id}_many`),
  ];
  const ADMIN_IDS = [
    ...['party', 'lead', 'invoice'].flatMap((m) => ['get', 'list', 'search', 'create', 'update', 'delete'].map((c) => `${m}.${c}`)),
    'lead.qualify',
    'lead.win',
    'lead.lose',
    'invoice.post',
    'invoice.pay',
    'invoice.cancel',
    // Issue 14: every model's history and revert.
    ...['party', 'lead', 'invoice'].flatMap((m) => [`${m}.history`, `${m}.revert`]),
    // Issue 21: the fixtures' order, with its actions.
    ...['get', 'list', 'search', 'create', 'update', 'delete', 'confirm', 'cancel', 'deliver', 'history', 'revert'].map((c) => `order.${c}`),
    // Issue 22: every model's bulk commands.
    ...BULK_IDS,
    // Issue 24: erasure, the admin's only, of every model holding personal data.
    ...['party', 'lead', 'order'].map((m) => `${m}.erase`),
  ];

  it('admin catalogue: every command, each {id, description, needs_approval}', async () => {
    const r = await s.request('GET', '/api/commands', undefined, admin);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['commands']);
    const cmds = r.body.commands as Rec[];
    expect(cmds.map((c) => c.id).sort()).toEqual([...ADMIN_IDS].sort());
    for (const c of cmds) {
      expect(Object.keys(c).sort()).toEqual(['description', 'id', 'needs_approval']);
      expect(typeof c.description).toBe('string');
      expect(c.description.length).toBeGreaterThan(0);
      expect(typeof c.needs_approval).toBe('boolean');
    }
  });

  it('needs_approval: every delete and revert, invoice.post, invoice.pay, the bulk commands; not lead.qualify', async () => {
    const cmds = (await s.request('GET', '/api/commands', undefined, admin)).body.commands as Rec[];
    const byId = Object.fromEntries(cmds.map((c) => [c.id, c.needs_approval]));
    expect(Object.keys(byId).filter((id) => byId[id]).sort()).toEqual(
      ['party.delete', 'lead.delete', 'invoice.delete', 'invoice.post', 'invoice.pay', 'party.revert', 'lead.revert', 'invoice.revert', 'order.delete', 'order.cancel', 'order.revert', ...BULK_IDS].sort(),
    );
    expect(byId['lead.qualify']).toBe(false);
  });

  it('sales catalogue: only what sales may use', async () => {
    const sales = await s.addPerson('cat-sales', ['sales']);
    const ids = ((await s.request('GET', '/api/commands', undefined, sales)).body.commands as Rec[]).map((c) => c.id).sort();
    // invoice.get brings invoice.history with it; erase is the admin's only.
    expect(ids).toEqual(ADMIN_IDS.filter((id) => !id.endsWith('.erase') && (!id.startsWith('invoice.') || ['invoice.get', 'invoice.list', 'invoice.search', 'invoice.history'].includes(id))).sort());
  });

  it('agent catalogue: scopes lead.* and party.get (which brings party.history)', async () => {
    const a = await agentToken(s, admin, ['lead.*', 'party.get']);
    const ids = ((await s.request('GET', '/api/commands', undefined, a)).body.commands as Rec[]).map((c) => c.id).sort();
    expect(ids).toEqual(
      [
        ...['get', 'list', 'search', 'create', 'update', 'delete', 'qualify', 'win', 'lose', 'history', 'revert', 'create_many', 'update_many', 'delete_many', 'qualify_many', 'win_many', 'lose_many'].map((c) => `lead.${c}`),
        'party.get',
        'party.history',
      ].sort(),
    );
  });

  it('GET /api/meta carries Link: </mcp>; rel="mcp"', async () => {
    const r = await s.request('GET', '/api/meta', undefined, admin);
    expect(r.status).toBe(200);
    expect(r.headers.get('link')).toBe('</mcp>; rel="mcp"');
    const a = await agentToken(s, admin, ['lead.get']);
    expect((await s.request('GET', '/api/meta', undefined, a)).headers.get('link')).toBe('</mcp>; rel="mcp"');
  });

  it('meta for admin names every model and the actions', async () => {
    const body = (await s.request('GET', '/api/meta', undefined, admin)).body;
    const text = JSON.stringify(body);
    for (const name of ['party', 'lead', 'invoice', 'qualify', 'win', 'lose', 'post', 'pay', 'cancel', 'tax_id', 'internal_note']) {
      expect(text).toContain(`"${name}"`);
    }
  });

  it('meta for sales does not show party.tax_id', async () => {
    const sales = await s.addPerson('meta-sales', ['sales']);
    const body = (await s.request('GET', '/api/meta', undefined, sales)).body;
    expect(findAll(body, (o) => o.name === 'tax_id')).toEqual([]);
  });

  it('meta for an agent: no hidden fields, no models outside its scopes', async () => {
    const a = await agentToken(s, admin, ['lead.*', 'party.get']);
    const body = (await s.request('GET', '/api/meta', undefined, a)).body;
    expect(findAll(body, (o) => o.name === 'tax_id')).toEqual([]);
    expect(findAll(body, (o) => o.name === 'invoice' || o.name === 'internal_note')).toEqual([]);
    expect(findAll(body, (o) => o.name === 'lead').length).toBeGreaterThan(0);
  });
});
