/**
 * `contains` on a search field chooses its plan by how many rows hold the needle (SQLite here,
 * PostgreSQL under RMS_TEST_PG_URL): a term most rows hold is a scan in the page's order that
 * stops after the page, a rare one goes through the trigram index. Whatever the plan, a page has
 * the rows, the order and the exact total a scan in JavaScript gives, for edge needles too; on
 * SQLite a lone `contains` counts its total from the FTS5 table, which must stay exact after writes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ListInput } from '../../../runtime/kinds.ts';
import { compileList, compileModelQuery, containsPlanning, listStatement, plannedWhere, type CompiledList } from '../../../runtime/query/list-query.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const LEADS = 20_000;
/** Titles of a few rows, with what folds, escapes or quotes: the rest are `Lead <n>`, every 20th a renewal. */
const ODD_TITLES = ['Ärger im Büro', 'x_y%z\\w', 'İstanbul deal', 'straße project', 'say "hello" it\'s', 'ÉCOLE привет', '\u212AELVIN kelvin'];
const UNIQUE_WORD = 'zephyrine';

function titleOf(i: number): string {
  const odd = i % 97 === 0 ? ` ${ODD_TITLES[(i / 97) % ODD_TITLES.length]}` : '';
  return `Lead ${i}${i % 20 === 0 ? ' renewal' : ''}${i === 12_345 ? ` ${UNIQUE_WORD}` : ''}${odd}`;
}

let t: TestServer;
let admin: string;
/** The titles as stored, by id (kept in step with the writes the tests make). */
const titles = new Map<string, string>();
const defaultScanRows = containsPlanning.scanRows;

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
  const rows = Array.from({ length: LEADS }, (_, k) => {
    const i = k + 1;
    const id = `L${String(i).padStart(6, '0')}`;
    titles.set(id, titleOf(i));
    return { id, title: titleOf(i), stage: i % 2 === 0 ? 'won' : 'new' };
  });
  const { db } = t.server;
  await db.transaction(async (trx) => {
    for (let at = 0; at < rows.length; at += 500) await trx('lead').insert(rows.slice(at, at + 500));
  });
  await db.raw('analyze');
}, 120_000);

afterEach(() => {
  containsPlanning.scanRows = defaultScanRows;
});

afterAll(async () => {
  await t?.close();
});

function compiled(input: ListInput): CompiledList {
  const lead = t.server.service.registry.models.lead!;
  return compileList(compileModelQuery(lead, t.dialect), new Set(lead.fields.map((field) => field.name)), input);
}

/** The statement a page runs once its plan is chosen, and the database's plan of it. */
async function chosenPlan(input: ListInput): Promise<{ sql: string; plan: string }> {
  const list = compiled(input);
  const { db } = t.server;
  const { sql, bindings } = listStatement('select * from "lead"', { ...list, where: await plannedWhere(db, list) }, t.dialect);
  if (t.dialect === 'sqlite') {
    const rows = (await db.raw(`explain query plan ${sql}`, bindings as never)) as { detail: string }[];
    return { sql, plan: rows.map((row) => row.detail).join('\n') };
  }
  const result = (await db.raw(`explain ${sql}`, bindings as never)) as { rows: { 'QUERY PLAN': string }[] };
  return { sql, plan: result.rows.map((row) => row['QUERY PLAN']).join('\n') };
}

/** What a scan in JavaScript finds, in id order: the folding of JavaScript's toLowerCase. */
function expectedIds(value: string): string[] {
  const needle = value.toLowerCase();
  return [...titles].filter(([, title]) => title.toLowerCase().includes(needle)).map(([id]) => id).sort();
}

const contains = (value: string) => ({ field: 'title', op: 'contains' as const, value });

describe('the plan follows how many rows hold the needle', () => {
  it('a term in every row and one in 5 % of rows: a scan in id order, stopping after the page', async () => {
    for (const value of ['lead', 'RENEWAL']) {
      const { sql, plan } = await chosenPlan({ filter: [contains(value)], limit: 50 });
      if (t.dialect === 'sqlite') {
        expect(sql, value).not.toContain('rms_fts_lead_title');
        expect(plan, plan).not.toContain('USE TEMP B-TREE FOR ORDER BY');
      } else if (value === 'lead') {
        // PostgreSQL's planner chooses by the trigram index's statistics; the ids byte by byte give the order.
        expect(plan, plan).toContain('rms_ix_lead_id');
        expect(plan, plan).not.toMatch(/^\s*(->\s*)?Sort\b/m);
      }
    }
  });

  it('a term in one row: through the trigram index', async () => {
    const { plan } = await chosenPlan({ filter: [contains(UNIQUE_WORD)], limit: 50 });
    expect(plan, plan).toContain(t.dialect === 'sqlite' ? 'rms_fts_lead_title' : 'rms_trgm_lead_title');
  });

  it('a deep page needs more matches before a scan pays: the same term goes through the index', async () => {
    if (t.dialect !== 'sqlite') return; // PostgreSQL's planner weighs the offset itself
    // 50 + 19,000 rows wanted from 1,000 matches: a scan would read the whole table.
    const { sql } = await chosenPlan({ filter: [contains('renewal')], limit: 50, offset: 19_000 });
    expect(sql).toContain('rms_fts_lead_title');
  });
});

describe('either plan answers what a scan in JavaScript answers', () => {
  // scanRows 1: a scan never pays, so every needle goes through the index; 1e12: every needle found at all is scanned.
  const plans = [
    ['index', 1],
    ['scan', 1e12],
  ] as const;
  const needles = ['lead', 'renewal', UNIQUE_WORD, 'lead 1234', 'LEAD 20000', 'ärger im', 'ÄRGER', 'x_y%z', '%z\\w', '_y', '%', 'straße', 'STRASSE', 'i̇stanbul', 'école', 'привет', '"hello"', "it's", 'kelvin', 'ead', ' 12', ' renewal', '   ', '""', '"""', 'ab', 'no such thing'];

  it.each(plans)('the %s plan is the one taken (SQLite)', async (name, scanRows) => {
    if (t.dialect !== 'sqlite') return;
    containsPlanning.scanRows = scanRows;
    const { sql } = await chosenPlan({ filter: [contains('renewal')], limit: 50 });
    expect(sql.includes('rms_fts_lead_title')).toBe(name === 'index');
  });

  for (const [name, scanRows] of plans) {
    it.each(needles)(`${name}: %j, a first page of 50 and its total`, async (value) => {
      containsPlanning.scanRows = scanRows;
      const expected = expectedIds(value);
      const res = await t.command(admin, 'lead.search', { filter: [contains(value)], limit: 50 });
      expect(res.status).toBe(200);
      expect(res.body.value.rows.map((row: { id: string }) => row.id)).toEqual(expected.slice(0, 50));
      expect(res.body.value.total).toBe(expected.length);
    });
  }

  it.each(plans)('%s: another order, an offset, a keyset page and a second condition', async (_name, scanRows) => {
    containsPlanning.scanRows = scanRows;
    const byTitleDesc = [...titles].filter(([, title]) => title.toLowerCase().includes('renewal')).sort(([a, x], [b, y]) => (x < y ? 1 : x > y ? -1 : a < b ? -1 : 1)).map(([id]) => id);
    const ordered = await t.command(admin, 'lead.search', { filter: [contains('renewal')], order: [{ field: 'title', dir: 'desc' }], limit: 20, offset: 30 });
    expect(ordered.body.value.rows.map((row: { id: string }) => row.id)).toEqual(byTitleDesc.slice(30, 50));
    expect(ordered.body.value.total).toBe(byTitleDesc.length);

    const first = await t.command(admin, 'lead.list', { filter: [contains('lead 1')], limit: 30, after: '' });
    const second = await t.command(admin, 'lead.list', { filter: [contains('lead 1')], limit: 30, after: first.body.next });
    expect([...first.body.value, ...second.body.value].map((row: { id: string }) => row.id)).toEqual(expectedIds('lead 1').slice(0, 60));

    const won = await t.command(admin, 'lead.search', { filter: [contains('renewal'), { field: 'stage', op: 'eq', value: 'won' }], limit: 50 });
    expect(won.body.value.total).toBe(expectedIds('renewal').length); // every 20th row is even: all won
    const wonNew = await t.command(admin, 'lead.search', { filter: [contains('lead 1'), { field: 'stage', op: 'eq', value: 'new' }], limit: 50 });
    const expectedNew = expectedIds('lead 1').filter((id) => Number(id.slice(1)) % 2 === 1);
    expect(wonNew.body.value.rows.map((row: { id: string }) => row.id)).toEqual(expectedNew.slice(0, 50));
    expect(wonNew.body.value.total).toBe(expectedNew.length);
  });
});

describe('the total stays exact after writes', () => {
  it('created, renamed and deleted records count at once', async () => {
    const total = async (value: string) => (await t.command(admin, 'lead.search', { filter: [contains(value)], limit: 1 })).body.value.total as number;
    const before = await total('renewal');
    const made = await t.command(admin, 'lead.create', { title: 'Contract RENEWAL due' });
    expect(made.status).toBe(200);
    expect(await total('renewal')).toBe(before + 1);
    await t.command(admin, 'lead.update', { id: 'L000020', title: 'Lead 20 closed' });
    expect(await total('renewal')).toBe(before);
    await t.command(admin, 'lead.delete', { id: 'L000040' });
    await t.command(admin, 'lead.delete', { id: made.body.value.id });
    expect(await total('renewal')).toBe(before - 2);
    expect(await total('lead')).toBe(LEADS - 1);
    titles.set('L000020', 'Lead 20 closed');
    titles.delete('L000040');
    expect(await total('renewal')).toBe(expectedIds('renewal').length);
  });
});
