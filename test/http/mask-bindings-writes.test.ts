/**
 * A write keeps masking bindings true (runtime/masking/bindings.ts) with the statements that can
 * change something: a record or a line the write itself created has no binding yet, so its create
 * drops none (each drop is a statement in the write's transaction, and an order of 20 lines ran 20
 * of them); a changed personal value of a record or line that existed drops the others' bindings
 * (after its history entry has looked up the tokens bound to the value it replaces).
 * The statements are the ones the server's SQLite connection prepares, whether through knex or as
 * SQL written once (runtime/db/statements.ts): every statement a write runs is prepared on that one
 * connection. SQLite only: the code that decides is the same on PostgreSQL, where the statements
 * go to another process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPostgresUrl } from '../helpers/postgres.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
let customer: string;
const statements: string[] = [];

interface Connection {
  prepare(sql: string): unknown;
}

beforeAll(async () => {
  if (testPostgresUrl()) return;
  t = await startTestServer();
  admin = await t.login();
  customer = (await t.command(admin, 'party.create', { name: 'Bindings customer' })).body.value.id;
  // The writer: the pool's one connection, whose prepare every statement of a write goes through.
  const client = t.server.db.client as { acquireConnection(): Promise<Connection>; releaseConnection(connection: Connection): unknown };
  const connection = await client.acquireConnection();
  const prepare = connection.prepare.bind(connection);
  connection.prepare = (sql: string) => {
    statements.push(sql);
    return prepare(sql);
  };
  await client.releaseConnection(connection);
});

afterAll(async () => {
  await t?.close();
});

/** The statements on the bindings table that a command ran. */
async function bindingStatements(commandId: string, input: Record<string, unknown>): Promise<{ status: number; value: any; statements: string[] }> {
  statements.length = 0;
  const answer = await t.command(admin, commandId, input);
  return { status: answer.status, value: answer.body.value ?? answer.body, statements: statements.filter((sql) => sql.includes('rms_mask_bindings')) };
}

const items = (count: number) => Array.from({ length: count }, (_, i) => ({ description: `Item ${i}`, quantity: 1, unit_price: 100, note: `Ask Ms Line ${i}` }));

describe.skipIf(testPostgresUrl() !== undefined)('the masking bindings statements of a write', () => {
  // Inputs made when the test runs: the customer exists by then.
  it.each([
    ['lead.create with its personal notes', 'lead.create', () => ({ title: 'New lead', notes: 'Call Ms Bindings' })],
    ['order.create of 20 lines, each with a personal note, and a personal contact', 'order.create', () => ({ number: 'BN-1001', customer, contact_email: 'buyer@example.com', items: items(20) })],
  ])('%s: none, since nothing is bound to what it creates', async (_name, commandId, input) => {
    const run = await bindingStatements(commandId, input());
    expect(run.status, JSON.stringify(run.value)).toBe(200);
    expect(run.statements).toEqual([]);
  });

  it('order.update that changes one line\'s note, keeps one line and adds one: for the changed line only, its history\'s look-up of the tokens bound to the old value, and the drop', async () => {
    const created = await bindingStatements('order.create', { number: 'BN-1002', customer, items: items(2) });
    expect(created.status).toBe(200);
    const [first, second] = created.value.items as { id: string }[];
    const run = await bindingStatements('order.update', {
      id: created.value.id,
      items: [{ id: first!.id, note: 'Ask Ms Changed' }, { id: second!.id }, { description: 'Added', quantity: 1, unit_price: 5, note: 'Ask Ms Added' }],
    });
    expect(run.status).toBe(200);
    expect(run.statements, run.statements.join('\n')).toHaveLength(2);
    expect(run.statements[0]).toMatch(/^select .* from [`"]?rms_mask_bindings[`"]? where [`"]?model[`"]? = \? and [`"]?record_id[`"]? = \? and [`"]?field[`"]? in \(\?\)$/);
    expect(run.statements[1]).toMatch(/^delete from [`"]?rms_mask_bindings[`"]? where [`"]?model[`"]? = \? and [`"]?record_id[`"]? = \? and [`"]?field[`"]? in \(\?\)$/);
  });

  it('a revert puts back, with a value, the binding an agent had on it: the same row, as its write made it', async () => {
    const agent = await agentToken(t, admin, ['lead.*'], 'binding writer');
    const created = await t.command(agent, 'lead.create', { title: 'Bound lead', notes: 'Call Ms Bound' });
    expect(created.status).toBe(200);
    const id = created.body.value.id as string;
    const bindings = () => t.inspect((db) => db.prepare('select agent_token_id, model, record_id, field, label, n, value_hash from rms_mask_bindings where record_id = ? order by agent_token_id').all(id));
    const written = await bindings();
    expect(written).toHaveLength(1);
    // A person changes the note: the agent's binding goes (its history entry keeps the token).
    expect((await t.command(admin, 'lead.update', { id, notes: 'Call Mr Other' })).status).toBe(200);
    expect(await bindings()).toEqual([]);
    const entries = (await t.command(admin, 'lead.history', { id })).body.value.rows as { change_id: string; command: string }[];
    const update = entries.find((entry) => entry.command === 'lead.update')!;
    statements.length = 0;
    expect((await t.command(admin, 'lead.revert', { id, change_id: update.change_id })).status).toBe(200);
    expect(await bindings()).toEqual(written);
    // Put back by the statements a write binds with: the drop of the agent's field, then its insert.
    const bindingWrites = statements.filter((sql) => /^(delete from|insert into) [`"]?rms_mask_bindings/.test(sql));
    expect(bindingWrites.slice(-2).map((sql) => sql.replace(/[`"]/g, '').split(' ').slice(0, 3).join(' '))).toEqual(['delete from rms_mask_bindings', 'insert into rms_mask_bindings']);
  });
});
