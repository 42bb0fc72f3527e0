/**
 * An agent's `get` reads the record and the agent's bindings on it in one statement (the
 * generated `findForAgent`); `list` reads bindings apart. Both must show every personal value as
 * the same token, whatever bound it or ended its binding: case by case, `get` answers what `list`
 * answers for the same record, and the token the case expects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let admin: string;
let agent: string;
let other: string;

beforeAll(async () => {
  t = await startTestServer();
  admin = await t.login();
  agent = await agentToken(t, admin, ['party.*'], 'get bot');
  other = await agentToken(t, admin, ['party.*'], 'other bot');
});

afterAll(async () => {
  await t?.close();
});

type Party = Record<string, unknown> & { id: string };

async function viaGet(token: string, id: string): Promise<Party> {
  const res = await t.command(token, 'party.get', { id });
  expect(res.status).toBe(200);
  return res.body.value;
}

async function viaList(token: string, id: string): Promise<Party> {
  const res = await t.command(token, 'party.list', { filter: [{ field: 'id', op: 'eq', value: id }] });
  expect(res.status).toBe(200);
  expect(res.body.value).toHaveLength(1);
  return res.body.value[0];
}

/** The agent's shared token for a value: what it reads on a record a person wrote with that name. */
async function sharedToken(token: string, name: string): Promise<string> {
  const id = (await t.command(admin, 'party.create', { name })).body.value.id;
  return (await viaGet(token, id)).name as string;
}

interface Case {
  readonly name: string;
  /** Makes the record; answers its id and the name token `agent` should read on it (`reader` when given). */
  readonly make: () => Promise<{ id: string; name: string }>;
  readonly reader?: () => string;
}

const cases: Case[] = [
  {
    name: 'a value the agent wrote in clear: its written token, not the shared one',
    async make() {
      const created = (await t.command(agent, 'party.create', { name: 'Written Once' })).body.value;
      expect(created.name).not.toBe(await sharedToken(agent, 'Written Once'));
      return { id: created.id, name: created.name };
    },
  },
  {
    name: 'the same record read by another agent: that agent\'s shared token',
    reader: () => other,
    async make() {
      const created = (await t.command(agent, 'party.create', { name: 'Written For Another' })).body.value;
      return { id: created.id, name: await sharedToken(other, 'Written For Another') };
    },
  },
  {
    name: 'a value a person changed since: the shared token of the new value',
    async make() {
      const created = (await t.command(agent, 'party.create', { name: 'Changed Later' })).body.value;
      expect((await t.command(admin, 'party.update', { id: created.id, name: 'Changed By Person' })).status).toBe(200);
      return { id: created.id, name: await sharedToken(agent, 'Changed By Person') };
    },
  },
  {
    name: 'a value changed outside the command path: the binding is out of use, the shared token shows',
    async make() {
      const created = (await t.command(agent, 'party.create', { name: 'Changed In The Database' })).body.value;
      await t.server.db('party').where({ id: created.id }).update({ name: 'Set By Script' });
      return { id: created.id, name: await sharedToken(agent, 'Set By Script') };
    },
  },
  {
    name: 'a shared token the agent sent back: that token',
    async make() {
      const token = await sharedToken(agent, 'Sent Back');
      const created = (await t.command(agent, 'party.create', { name: token })).body.value;
      expect(created.name).toBe(token);
      return { id: created.id, name: token };
    },
  },
  {
    name: 'a record the agent never wrote: the shared token',
    async make() {
      const id = (await t.command(admin, 'party.create', { name: 'Never Written', email: 'never@example.com' })).body.value.id;
      return { id, name: await sharedToken(agent, 'Never Written') };
    },
  },
];

describe("an agent's get shows what its list shows", () => {
  it.each(cases)('$name', async ({ make, reader }) => {
    const { id, name } = await make();
    const token = reader?.() ?? agent;
    const got = await viaGet(token, id);
    expect(got.name).toBe(name);
    expect(got).toEqual(await viaList(token, id));
  });

  it('binds fields one by one: a field it wrote shows its written token beside one a person wrote', async () => {
    const created = (await t.command(agent, 'party.create', { name: 'Two Fields', email: 'two@example.com' })).body.value;
    expect((await t.command(admin, 'party.update', { id: created.id, email: 'changed@example.com' })).status).toBe(200);
    const got = await viaGet(agent, created.id);
    expect(got.name).toBe(created.name);
    expect(got.email).not.toBe(created.email);
    expect(got.email).toMatch(/^EMAIL_\d+$/);
    expect(got).toEqual(await viaList(agent, created.id));
  });

  it('refuses a record that no longer exists as it refuses a person', async () => {
    const id = (await t.command(agent, 'party.create', { name: 'Deleted Soon' })).body.value.id;
    expect((await t.command(admin, 'party.delete', { id })).status).toBe(200);
    const res = await t.command(agent, 'party.get', { id });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: `party ${id} not found` });
    expect((await t.command(admin, 'party.get', { id })).body).toEqual(res.body);
  });
});
