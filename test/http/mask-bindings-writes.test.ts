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
import { startTestServer, type TestServer } from '../helpers/server.ts';

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
});
