/**
 * The generated commands over real HTTP and a real SQLite file: field kinds, required fields,
 * unknown keys, governed fields and actions, delete refused while referenced, record values.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let srv: TestServer;
let admin: string;

beforeAll(async () => {
  srv = await startTestServer();
  admin = await srv.login();
});
afterAll(() => srv?.close());

async function ok(commandId: string, input: unknown) {
  const res = await srv.command(admin, commandId, input);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.value;
}

async function refused(commandId: string, input: unknown, error: string) {
  const res = await srv.command(admin, commandId, input);
  expect(res.body).toEqual({ error });
  expect(res.status).toBe(400);
}

async function newParty(name = 'ACME') {
  return (await ok('party.create', { name, kind: 'company' })).id as string;
}

async function newLead(fields: Record<string, unknown> = {}) {
  return (await ok('lead.create', { title: 'Deal', ...fields })).id as string;
}

describe('create, get, update, delete', () => {
  it('creates a record with every field, null where empty, and reads it back', async () => {
    const party = await newParty();
    const value = await ok('lead.create', {
      title: 'Big deal',
      party,
      expected_revenue: 123456,
      probability: 40,
      close_date: '2024-02-29',
      hot: false,
      notes: 'call back',
    });
    expect(value).toEqual({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      title: 'Big deal',
      party,
      stage: 'new',
      expected_revenue: 123456,
      probability: 40,
      close_date: '2024-02-29',
      hot: false,
      notes: 'call back',
      lost_reason: null,
    });
    const res = await srv.command(admin, 'lead.get', { id: value.id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ denied: [], value });
  });

  it('stores bool as 0/1 in SQLite and returns true/false', async () => {
    const id = await newLead({ hot: true });
    expect(srv.inspect((db) => db.prepare('select hot from lead where id = ?').get(id))).toEqual({ hot: 1 });
    expect((await ok('lead.get', { id })).hot).toBe(true);
  });

  it('gives new records time-ordered ids', async () => {
    const a = await newLead();
    const b = await newLead();
    expect(a < b).toBe(true);
  });

  it('updates only the fields given and returns the updated record', async () => {
    const id = await newLead({ probability: 10, notes: 'keep me' });
    const value = await ok('lead.update', { id, probability: 90, hot: true });
    expect(value).toMatchObject({ id, title: 'Deal', probability: 90, hot: true, notes: 'keep me', stage: 'new' });
  });

  it('empties a field with null or, for text, with ""', async () => {
    const id = await newLead({ probability: 10, notes: 'n', lost_reason: 'r' });
    const value = await ok('lead.update', { id, probability: null, notes: '', lost_reason: null });
    expect(value).toMatchObject({ probability: null, notes: null, lost_reason: null });
    expect(srv.inspect((db) => db.prepare('select probability, notes, lost_reason from lead where id = ?').get(id))).toEqual({
      probability: null,
      notes: null,
      lost_reason: null,
    });
  });

  it('stores "" in an optional text field on create as empty', async () => {
    const id = await newLead({ notes: '', lost_reason: '' });
    expect(srv.inspect((db) => db.prepare('select notes, lost_reason from lead where id = ?').get(id))).toEqual({ notes: null, lost_reason: null });
  });

  it('deletes a record and returns its id', async () => {
    const id = await newLead();
    expect(await ok('lead.delete', { id })).toEqual({ id });
    expect(srv.inspect((db) => db.prepare('select count(*) as n from lead where id = ?').get(id))).toEqual({ n: 0 });
    await refused('lead.get', { id }, `lead ${id} not found`);
  });

  it('refuses unknown record ids with 400 <model> <id> not found', async () => {
    await refused('lead.get', { id: 'NOPE' }, 'lead NOPE not found');
    await refused('lead.update', { id: 'NOPE', title: 'x' }, 'lead NOPE not found');
    await refused('lead.update', { id: 'NOPE' }, 'lead NOPE not found');
    await refused('lead.delete', { id: 'NOPE' }, 'lead NOPE not found');
    await refused('lead.qualify', { id: 'NOPE' }, 'lead NOPE not found');
    await refused('lead.update', { id: 'NOPE', stage: 'qualified' }, 'lead NOPE not found');
  });

  it('refuses a missing or malformed id', async () => {
    await refused('lead.get', {}, 'id is required');
    await refused('lead.get', { id: 5 }, 'id must be a string');
    await refused('lead.get', { id: '' }, 'id is required');
    await refused('lead.update', { title: 'x' }, 'id is required');
    await refused('lead.get', { id: 'x', extra: 1 }, 'unknown field lead.extra');
  });
});

describe('field kinds', () => {
  it('number and money take safe integers only', async () => {
    await refused('lead.create', { title: 't', probability: 1.5 }, 'lead.probability must be an integer');
    await refused('lead.create', { title: 't', probability: '5' }, 'lead.probability must be an integer');
    await refused('lead.create', { title: 't', probability: 2 ** 53 }, expect.stringMatching(/^lead\.probability must be a(n| safe) integer$/) as never);
    await refused('lead.create', { title: 't', expected_revenue: 12.34 }, 'lead.expected_revenue must be an integer amount in minor units (12.34 is 1234)');
    expect((await ok('lead.create', { title: 't', expected_revenue: Number.MAX_SAFE_INTEGER })).expected_revenue).toBe(Number.MAX_SAFE_INTEGER);
    expect((await ok('lead.create', { title: 't', probability: -3 })).probability).toBe(-3);
  });

  it('dates must be real calendar dates YYYY-MM-DD', async () => {
    const message = 'lead.close_date must be a real calendar date YYYY-MM-DD';
    await refused('lead.create', { title: 't', close_date: '2025-02-30' }, message);
    await refused('lead.create', { title: 't', close_date: '2023-02-29' }, message);
    await refused('lead.create', { title: 't', close_date: '2025-1-05' }, message);
    await refused('lead.create', { title: 't', close_date: '2025-01-05T00:00:00Z' }, message);
    await refused('lead.create', { title: 't', close_date: 20250105 }, message);
    expect((await ok('lead.create', { title: 't', close_date: '2024-02-29' })).close_date).toBe('2024-02-29');
  });

  it('bool takes only true or false', async () => {
    await refused('lead.create', { title: 't', hot: 'true' }, 'lead.hot must be true or false');
    await refused('lead.create', { title: 't', hot: 1 }, 'lead.hot must be true or false');
  });

  it('select takes one of its options', async () => {
    await refused('party.create', { name: 'n', kind: 'robot' }, 'party.kind must be one of: person, company');
    await refused('party.create', { name: 'n', kind: 'Person' }, 'party.kind must be one of: person, company');
    expect((await ok('party.create', { name: 'n', kind: 'person' })).kind).toBe('person');
  });

  it('ref takes the id of an existing record of the target model', async () => {
    await refused('lead.create', { title: 't', party: 5 }, 'lead.party must be the id of a party');
    await refused('lead.create', { title: 't', party: 'NOPE' }, 'lead.party: no party with id NOPE');
    const lead = await newLead();
    // The id of a record of another model is not a party.
    await refused('lead.create', { title: 't', party: lead }, `lead.party: no party with id ${lead}`);
    await refused('lead.update', { id: lead, party: 'NOPE' }, 'lead.party: no party with id NOPE');
    const party = await newParty();
    expect((await ok('lead.update', { id: lead, party })).party).toBe(party);
  });

  it('text takes strings', async () => {
    await refused('lead.create', { title: 5 }, 'lead.title must be a string');
    await refused('lead.create', { title: ['a'] }, 'lead.title must be a string');
  });
});

describe('required fields and unknown keys', () => {
  it('refuses a create without a required field, or with it empty', async () => {
    await refused('lead.create', {}, 'lead.title is required');
    await refused('lead.create', { title: '' }, 'lead.title is required');
    await refused('lead.create', { title: null }, 'lead.title is required');
    await refused('invoice.create', { number: 'I-1', amount: 100, issue_date: '2025-01-01' }, 'invoice.party is required');
  });

  it('refuses emptying a required field on update', async () => {
    const id = await newLead();
    await refused('lead.update', { id, title: null }, 'lead.title is required');
    await refused('lead.update', { id, title: '' }, 'lead.title is required');
  });

  it('refuses unknown keys', async () => {
    await refused('lead.create', { title: 't', colour: 'red' }, 'unknown field lead.colour');
    await refused('lead.create', { title: 't', id: 'MINE' }, 'unknown field lead.id');
    const id = await newLead();
    await refused('lead.update', { id, colour: 'red' }, 'unknown field lead.colour');
    await refused('lead.list', { colour: 'red' }, 'unknown key colour');
  });

  it('refuses a body that is not a JSON object', async () => {
    await refused('lead.create', [], 'input must be a JSON object');
    await refused('lead.create', 'null', 'input must be a JSON object');
    await refused('lead.create', '"title"', 'input must be a JSON object');
    await refused('lead.create', '42', 'input must be a JSON object');
  });

  it('writes nothing when input is refused', async () => {
    const before = srv.inspect((db) => db.prepare('select count(*) as n from lead').get());
    await refused('lead.create', { title: 't', party: 'NOPE' }, 'lead.party: no party with id NOPE');
    await refused('lead.create', { title: 't', probability: 0.5 }, 'lead.probability must be an integer');
    expect(srv.inspect((db) => db.prepare('select count(*) as n from lead').get())).toEqual(before);
  });
});

describe('governed fields and actions', () => {
  it('create puts governed selects on their first option', async () => {
    expect((await ok('lead.create', { title: 't' })).stage).toBe('new');
    const party = await newParty();
    expect((await ok('invoice.create', { number: 'I-1', party, amount: 100, issue_date: '2025-01-01' })).state).toBe('draft');
  });

  it('refuses a governed value in create input', async () => {
    await refused('lead.create', { title: 't', stage: 'won' }, 'lead.stage is set by actions (qualify, win, lose), not by create');
    await refused('lead.create', { title: 't', stage: 'new' }, 'lead.stage is set by actions (qualify, win, lose), not by create');
  });

  it('an action moves the state and returns the record', async () => {
    const id = await newLead();
    expect(await ok('lead.qualify', { id })).toMatchObject({ id, stage: 'qualified' });
    expect(await ok('lead.win', { id })).toMatchObject({ id, stage: 'won' });
  });

  it('an action refuses a record not in one of its from states', async () => {
    const id = await newLead();
    await ok('lead.qualify', { id });
    await ok('lead.win', { id });
    await refused('lead.qualify', { id }, 'lead.stage is won; qualify needs new');
    await refused('lead.lose', { id, lost_reason: 'late' }, 'lead.stage is won; lose needs new or qualified');
    const fresh = await newLead();
    await refused('lead.win', { id: fresh }, 'lead.stage is new; win needs qualified');
  });

  it('an action takes its required fields and writes them with the transition', async () => {
    const id = await newLead();
    await refused('lead.lose', { id }, 'lead.lost_reason is required');
    await refused('lead.lose', { id, lost_reason: '' }, 'lead.lost_reason is required');
    await refused('lead.lose', { id, lost_reason: 'x', title: 'y' }, 'lead.lose does not take lead.title');
    expect(await ok('lead.lose', { id, lost_reason: 'too expensive' })).toMatchObject({ stage: 'lost', lost_reason: 'too expensive', title: 'Deal' });
  });

  it('an action without inputs takes only the id', async () => {
    const id = await newLead();
    await refused('lead.qualify', { id, stage: 'won' }, 'lead.qualify does not take lead.stage');
  });

  it('update of a governed field runs the matching action', async () => {
    const id = await newLead();
    expect(await ok('lead.update', { id, stage: 'qualified', probability: 50 })).toMatchObject({ stage: 'qualified', probability: 50 });
    expect(await ok('lead.update', { id, stage: 'won' })).toMatchObject({ stage: 'won' });
  });

  it('update applies the action rules: transitions no action allows and required inputs', async () => {
    const id = await newLead();
    await refused('lead.update', { id, stage: 'won' }, 'lead.stage cannot move from new to won');
    await refused('lead.update', { id, stage: 'lost' }, 'lead.lost_reason is required');
    await refused('lead.update', { id, stage: 'bogus' }, 'lead.stage must be one of: new, qualified, won, lost');
    await refused('lead.update', { id, stage: null }, 'lead.stage is required');
    expect(srv.inspect((db) => db.prepare('select stage from lead where id = ?').get(id))).toEqual({ stage: 'new' });
    expect(await ok('lead.update', { id, stage: 'lost', lost_reason: 'budget' })).toMatchObject({ stage: 'lost', lost_reason: 'budget' });
    await refused('lead.update', { id, stage: 'new' }, 'lead.stage cannot move from lost to new');
  });

  it('update to the current state changes nothing else about the state', async () => {
    const id = await newLead();
    expect(await ok('lead.update', { id, stage: 'new', title: 'renamed' })).toMatchObject({ stage: 'new', title: 'renamed' });
  });
});

describe('delete and references', () => {
  it('refuses to delete a record another record refers to, and deletes nothing', async () => {
    const party = await newParty();
    const lead = await newLead({ party });
    await refused('party.delete', { id: party }, `party ${party} is referred to by lead ${lead}`);
    expect(srv.inspect((db) => db.prepare('select count(*) as n from party where id = ?').get(party))).toEqual({ n: 1 });
    await ok('lead.update', { id: lead, party: null });
    expect(await ok('party.delete', { id: party })).toEqual({ id: party });
  });

  it('checks every model that refers to the record', async () => {
    const party = await newParty();
    const invoice = (await ok('invoice.create', { number: 'I-9', party, amount: 1, issue_date: '2025-03-01' })).id;
    await refused('party.delete', { id: party }, `party ${party} is referred to by invoice ${invoice}`);
    const lead = await newLead();
    await ok('invoice.update', { id: invoice, lead });
    await refused('lead.delete', { id: lead }, `lead ${lead} is referred to by invoice ${invoice}`);
  });
});
