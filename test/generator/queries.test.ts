/**
 * The generated data-access functions (`generated/<module>/<model>.queries.ts`) against a real
 * database migrated from the generated registry: what they store (checked in the raw rows), what
 * they read back (the runtime's conversions: booleans, integers, nulls), filters, updates,
 * referrers and deletes. On SQLite always; on PostgreSQL too when `RMS_TEST_PG_URL` names a server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { deleteInvoice, insertInvoice, type NewInvoice } from '../../generated/accounting/invoice.queries.ts';
import {
  deleteLead,
  findLead,
  insertLead,
  leadReferrers,
  listLeads,
  updateLead,
  type LeadChanges,
  type LeadReferrer,
  type NewLead,
} from '../../generated/crm/lead.queries.ts';
import type { Lead } from '../../generated/crm/lead.schemas.ts';
import { findParty, insertParty, listParties, partyReferrers, type PartyReferrer } from '../../generated/crm/party.queries.ts';
import type { Party } from '../../generated/crm/party.schemas.ts';
import { registry } from '../../generated/registry.ts';
import { openDatabase, type Dialect } from '../../runtime/db/connect.ts';
import { migrate } from '../../runtime/db/migrate.ts';
import { createTestDatabase, testPostgresUrl, type TestDatabase } from '../helpers/postgres.ts';

const targets: Dialect[] = testPostgresUrl() === undefined ? ['sqlite'] : ['sqlite', 'postgres'];

describe.each(targets)('generated queries on %s', (dialect) => {
  let db: Knex;
  let folder: string | undefined;
  let database: TestDatabase | undefined;

  beforeAll(async () => {
    if (dialect === 'postgres') {
      database = await createTestDatabase(testPostgresUrl() as string, 'rms_queries');
      db = openDatabase(database.url);
    } else {
      folder = mkdtempSync(join(tmpdir(), 'rmsgen-queries-'));
      db = openDatabase(`sqlite:${join(folder, 'rms.sqlite')}`);
    }
    await migrate(db, registry);
  });

  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  /** A row exactly as the driver returns it, without the generated code's conversions. */
  async function rawRow(table: string, id: string): Promise<Record<string, unknown>> {
    return (await db(table).first('*').where('id', id)) as Record<string, unknown>;
  }

  // What the drivers return for a stored boolean and bigint: SQLite 1/0 and numbers, PostgreSQL booleans and strings.
  const storedBool = (value: boolean) => (dialect === 'sqlite' ? (value ? 1 : 0) : value);
  const storedInteger = (value: number) => (dialect === 'sqlite' ? value : String(value));

  it('insert stores every kind as the runtime does and returns the record; find reads it back converted', async () => {
    const party = await insertParty(db, { name: 'Ada', kind: 'company', tax_id: 'DE123' });
    expect(party).toEqual({ id: party.id, name: 'Ada', email: null, phone: null, kind: 'company', tax_id: 'DE123', notes: null });
    expect(party.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);

    const lead = await insertLead(db, { title: 'Big deal', party: party.id, expected_revenue: 123_456, probability: 40, close_date: '2024-02-29', hot: true });
    const expected: Lead = {
      id: lead.id,
      title: 'Big deal',
      party: party.id,
      stage: 'new',
      expected_revenue: 123_456,
      probability: 40,
      close_date: '2024-02-29',
      hot: true,
      notes: null,
      lost_reason: null,
    };
    expect(lead).toEqual(expected);
    expect(await findLead(db, lead.id)).toEqual(expected);
    expect(await rawRow('lead', lead.id)).toEqual({
      ...expected,
      expected_revenue: storedInteger(123_456),
      probability: storedInteger(40),
      hot: storedBool(true),
    });

    const cold = await insertLead(db, { title: 'Small deal', hot: false }, 'lead-cold');
    expect(cold.id).toBe('lead-cold');
    expect((await rawRow('lead', 'lead-cold')).hot).toBe(storedBool(false));
    expect(await findLead(db, 'lead-cold')).toMatchObject({ hot: false, party: null, expected_revenue: null, stage: 'new' });
    expect(await findLead(db, 'no-such-lead')).toBeUndefined();
    expect(await findParty(db, party.id)).toEqual(party);
  });

  it('list filters on equality (booleans, refs, null for empty fields), ordered by id', async () => {
    const party = await insertParty(db, { name: 'Bob', kind: 'person' });
    const a = await insertLead(db, { title: 'A', party: party.id, hot: true }, 'list-a');
    const b = await insertLead(db, { title: 'B', party: party.id, hot: false, stage: 'won' }, 'list-b');
    const c = await insertLead(db, { title: 'C' }, 'list-c');
    const ids = (records: readonly { id: string }[]) => records.map((record) => record.id).filter((id) => id.startsWith('list-'));
    expect(ids(await listLeads(db))).toEqual([a.id, b.id, c.id]);
    expect(await listLeads(db, { party: party.id })).toEqual([a, b]);
    expect(ids(await listLeads(db, { hot: true }))).toEqual([a.id]);
    expect(ids(await listLeads(db, { hot: false }))).toEqual([b.id]);
    expect(ids(await listLeads(db, { party: null }))).toEqual([c.id]);
    expect(await listLeads(db, { party: party.id, stage: 'won' })).toEqual([b]);
    expect(await listLeads(db, { id: 'list-c' })).toEqual([c]);
    expect((await listParties(db, { kind: 'person' })).map((record) => record.name)).toContain('Bob');
    await expect(listLeads(db, { colour: 'red' } as Partial<Lead>)).rejects.toThrow('unknown field lead.colour');
  });

  it('update changes only the given fields (null empties them) and returns the record as stored', async () => {
    const lead = await insertLead(db, { title: 'Update me', expected_revenue: 500, hot: true, notes: 'call back' });
    const updated = await updateLead(db, lead.id, { hot: false, expected_revenue: null, stage: 'qualified' });
    expect(updated).toEqual({ ...lead, hot: false, expected_revenue: null, stage: 'qualified' });
    expect(await rawRow('lead', lead.id)).toMatchObject({ hot: storedBool(false), expected_revenue: null, stage: 'qualified', notes: 'call back' });
    expect(await updateLead(db, lead.id, {})).toEqual(updated);
    expect(await updateLead(db, 'no-such-lead', { title: 'x' })).toBeUndefined();
    expect(await findLead(db, 'no-such-lead')).toBeUndefined();
  });

  it('referrers name the first record of each ref field; delete removes the row', async () => {
    const party = await insertParty(db, { name: 'Cy' });
    expect(await partyReferrers(db, party.id)).toEqual([]);
    const lead = await insertLead(db, { title: 'Referring', party: party.id });
    await insertLead(db, { title: 'Referring too', party: party.id });
    const values: NewInvoice = { number: 'INV-1', party: party.id, lead: lead.id, amount: 9_999, issue_date: '2024-03-01' };
    const invoice = await insertInvoice(db, values);
    expect(invoice).toMatchObject({ ...values, state: 'draft', due_date: null, internal_note: null });
    expect(await partyReferrers(db, party.id)).toEqual([
      { model: 'lead', field: 'party', id: lead.id },
      { model: 'invoice', field: 'party', id: invoice.id },
    ]);
    expect(await leadReferrers(db, lead.id)).toEqual([{ model: 'invoice', field: 'lead', id: invoice.id }]);

    expect(await deleteInvoice(db, invoice.id)).toBe(true);
    expect(await rawRow('invoice', invoice.id)).toBeUndefined();
    expect(await deleteInvoice(db, invoice.id)).toBe(false);
    expect(await leadReferrers(db, lead.id)).toEqual([]);
    expect(await deleteLead(db, lead.id)).toBe(true);
    expect(await findLead(db, lead.id)).toBeUndefined();
  });

  it('take a transaction as db: a failed transaction leaves nothing behind', async () => {
    await expect(
      db.transaction(async (trx) => {
        await insertLead(trx, { title: 'Rolled back' }, 'in-transaction');
        expect(await findLead(trx, 'in-transaction')).toMatchObject({ title: 'Rolled back' });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await findLead(db, 'in-transaction')).toBeUndefined();
  });
});

describe('generated query types', () => {
  it('read full records, take the create rules as values, and name referrers precisely', () => {
    expectTypeOf(findLead).returns.resolves.toEqualTypeOf<Lead | undefined>();
    expectTypeOf(listLeads).returns.resolves.toEqualTypeOf<Lead[]>();
    // Fields some callers may not read are always present here.
    expectTypeOf(findParty).returns.resolves.toEqualTypeOf<Required<Party> | undefined>();
    expectTypeOf(insertLead).parameter(1).toEqualTypeOf<NewLead>();
    expectTypeOf<NewLead['title']>().toEqualTypeOf<string>();
    expectTypeOf<NewLead['stage']>().toEqualTypeOf<'new' | 'qualified' | 'won' | 'lost' | undefined>();
    expectTypeOf<NewLead['hot']>().toEqualTypeOf<boolean | null | undefined>();
    expectTypeOf<LeadChanges['title']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<LeadReferrer>().toEqualTypeOf<{ readonly model: 'invoice'; readonly field: 'lead'; readonly id: string }>();
    expectTypeOf<PartyReferrer['model']>().toEqualTypeOf<'lead' | 'invoice'>();
    // @ts-expect-error title is required
    void (() => insertLead({} as Knex, { hot: true }));
    // @ts-expect-error a governed select cannot be emptied
    void (() => updateLead({} as Knex, 'x', { stage: null }));
  });
});
