/**
 * What a service tells agents and people about its own models, on a service that is not the demo
 * (test/helpers/lettings.ts: properties, units, tenants, leases), over real HTTP with the SDK's MCP
 * client: the instructions' examples come from its models (no `lead.title` where there is no lead),
 * articles go by sound (`a unit`), select options keep their declared order everywhere (MCP enums,
 * `GET /api/meta`, error texts), a ref says which tool finds its ids, a money field
 * says minor units, `list` and `search` each say when to use them, and an action refuses a field it
 * does not take by saying so.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Registry } from '../../runtime/registry.ts';
import { buildLettings, removeModuleTrees } from '../helpers/lettings.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';
import { connectClient, type ConnectedClient } from '../helpers/mcp-client.ts';

let registry: Registry;
let t: TestServer;
let admin: string;
let mcp: ConnectedClient;
let tools: Map<string, Tool>;

beforeAll(async () => {
  registry = await buildLettings();
  t = await startTestServer({ registry });
  admin = await t.login();
  mcp = await connectClient(t, admin);
  tools = new Map((await mcp.client.listTools()).tools.map((tool) => [tool.name, tool]));
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  await t?.close();
  removeModuleTrees();
});

type Property = { enum?: unknown[]; anyOf?: Property[]; description?: string };
type Schema = { properties: Record<string, Property> };

/** The allowed values of a property: its `enum`, or that of its non-null branch (`anyOf: [{enum}, {type: 'null'}]`). */
function enumOf(property: Property | undefined): unknown[] | undefined {
  return property?.enum ?? property?.anyOf?.find((branch) => branch.enum)?.enum;
}

function inputOf(name: string): Schema {
  return tools.get(name)!.inputSchema as unknown as Schema;
}

function textOf(result: CallToolResult): string {
  return (result.content[0] as { text: string }).text;
}

describe('worded from the service’s own models', () => {
  it('the instructions give examples from its own fields: a required field, its personal token, its currency', async () => {
    const agent = await connectClient(t, await agentToken(t, admin, ['*.*']));
    try {
      const instructions = agent.client.getInstructions() ?? '';
      expect(instructions).not.toMatch(/\blead\b|NAME_1\b(?<!FULL_NAME_1)/);
      expect(instructions).toContain('Business records of Lettings (property, unit, tenant, lease).');
      expect(instructions).toContain('personal fields come back as tokens like FULL_NAME_1');
      expect(instructions).toContain('Money fields hold integers in minor units: 950.00 EUR is 95000.');
      expect(instructions).toContain('A command that needs a person\'s approval changes nothing');
      expect(instructions).toContain('Refused input comes back as a tool error with the reason, e.g. "property.name is required".');
      // The example is true: that is what the service answers.
      await expect(t.command(admin, 'property.create', {})).resolves.toMatchObject({ status: 400, body: { error: 'property.name is required' } });
      // Each tool that returns a tenant says how its personal fields come back to the agent.
      const tenantGet = (await agent.client.listTools()).tools.find((tool) => tool.name === 'tenant__get')!;
      expect(tenantGet.description).toBe('Read one tenant by id. Returns the tenant. Personal fields (full_name, email, phone) come back as tokens like FULL_NAME_1, EMAIL_1, PHONE_1.');
    } finally {
      await agent.close();
    }
  });

  it('a person is not told of tokens or approvals: personal fields come to people in clear, and nothing of theirs waits', async () => {
    const instructions = mcp.client.getInstructions() ?? '';
    expect(instructions).toContain('Business records of Lettings (property, unit, tenant, lease).');
    expect(instructions).toContain('Results are {denied, value}: fields you may not read are absent and named in denied.');
    expect(instructions).toContain('Money fields hold integers in minor units: 950.00 EUR is 95000.');
    expect(instructions).not.toMatch(/token|approval/);
    for (const name of ['tenant__get', 'tenant__list', 'tenant__create', 'lease__get']) expect(tools.get(name)!.description, name).not.toMatch(/token/);
    // What the tool said is what it does: the admin reads the name in clear.
    const tenant = await t.command(admin, 'tenant.create', { full_name: 'Cleo Dunn' });
    const read = await mcp.client.callTool({ name: 'tenant__get', arguments: { id: tenant.body.value.id } });
    expect(JSON.parse(textOf(read as CallToolResult)).value.full_name).toBe('Cleo Dunn');
  });

  it('no tool names the demo’s models', () => {
    expect(JSON.stringify([...tools.values()])).not.toMatch(/\blead\b|\bparty\b|\binvoice\b/);
    expect(tools.get('unit__revert')!.description).toContain('Give a change_id from unit__history;');
  });

  it.each([
    ['unit__create', 'Create a unit.'],
    ['unit__update', 'Update fields of a unit.'],
    ['unit__delete', 'Delete a unit (agents can only propose this).'],
    ['unit__history', 'Read the changes made to a unit, newest first'],
    ['property__create', 'Create a property.'],
  ])('articles by sound: %s says "%s"', (name, start) => {
    expect(tools.get(name)!.description).toMatch(new RegExp(`^${start.replace(/[.()]/g, '\\$&')}`));
  });

  it('GET /api/commands words them the same way', async () => {
    const res = await t.request('GET', '/api/commands', undefined, admin);
    const described = Object.fromEntries((res.body.commands as { id: string; description: string }[]).map((command) => [command.id, command.description]));
    expect(described['unit.create']).toBe('Create a unit');
    expect(described['unit.delete']).toBe('Delete a unit (agents can only propose this)');
  });

  it('a ref says which tool finds its ids', () => {
    expect(inputOf('lease__create').properties.unit?.description).toBe('Id of a unit, from unit__search.');
    expect(inputOf('lease__create').properties.tenant?.description).toBe('Id of a tenant, from tenant__search.');
    expect(inputOf('unit__update').properties.property?.description).toBe('Id of a property, from property__search.');
  });

  it('a money field says minor units with an example in its currency, one short sentence', () => {
    expect(inputOf('lease__create').properties.rent?.description).toBe('Minor units: 950.00 EUR is 95000.');
    expect(inputOf('lease__update').properties.deposit?.description).toBe('Minor units: 950.00 EUR is 95000.');
  });

  it('list and search each say when to use them', () => {
    expect(tools.get('lease__list')!.description).toContain('Returns an array of leases; lease__search takes the same input and also counts the matches.');
    expect(tools.get('lease__search')!.description).toContain('Returns {rows, total}, total counting every match; to page without counting, lease__list is lighter.');
  });
});

describe('select options in their declared order', () => {
  const DECLARED: readonly [string, string, readonly string[]][] = [
    ['lease', 'state', ['draft', 'active', 'ended']],
    ['unit', 'status', ['vacant', 'occupied', 'maintenance']],
    ['property', 'kind', ['house', 'apartment', 'commercial']],
  ];

  it.each(DECLARED)('%s.%s: in MCP enums (which a description does not repeat)', (model, field, options) => {
    const governed = registry.models[model]!.fields.find((candidate) => candidate.name === field)!.governed;
    expect(enumOf(inputOf(`${model}__update`).properties[field])).toEqual(options);
    if (!governed) expect(enumOf(inputOf(`${model}__create`).properties[field])).toEqual(options);
    expect(inputOf(`${model}__update`).properties[field]?.description ?? '').not.toContain('One of:');
  });

  it.each(DECLARED)('%s.%s: in GET /api/meta and in the error that lists them', async (model, field, options) => {
    const meta = await t.request('GET', '/api/meta', undefined, admin);
    const fields = (meta.body.models as { name: string; fields: { name: string; options?: string[] }[] }[]).find((candidate) => candidate.name === model)!.fields;
    expect(fields.find((candidate) => candidate.name === field)?.options).toEqual(options);
    const refused = await t.command(admin, `${model}.update`, { id: 'any', [field]: 'zzz' });
    expect(refused).toMatchObject({ status: 400, body: { error: `${model}.${field} must be one of: ${options.join(', ')}` } });
  });

  it('a new lease starts at the first declared state', async () => {
    const property = await t.command(admin, 'property.create', { name: 'Harbour House' });
    const unit = await t.command(admin, 'unit.create', { code: 'HH-1', property: property.body.value.id });
    const tenant = await t.command(admin, 'tenant.create', { full_name: 'Ada Berg' });
    const lease = await t.command(admin, 'lease.create', { reference: 'L-1', unit: unit.body.value.id, tenant: tenant.body.value.id, rent: 95_000 });
    expect(lease.status).toBe(200);
    expect(lease.body.value.state).toBe('draft');
  });
});

describe('an action and the fields it does not take', () => {
  let lease: string;
  beforeAll(async () => {
    const property = await t.command(admin, 'property.create', { name: 'Mill House' });
    const unit = await t.command(admin, 'unit.create', { code: 'MH-1', property: property.body.value.id });
    const tenant = await t.command(admin, 'tenant.create', { full_name: 'Ben Costa' });
    lease = (await t.command(admin, 'lease.create', { reference: 'L-2', unit: unit.body.value.id, tenant: tenant.body.value.id, rent: 120_000 })).body.value.id;
  });

  it.each([
    ['lease.activate', { notes: 'keys handed over' }, 'lease.activate does not take lease.notes'],
    ['lease.activate', { state: 'active' }, 'lease.activate does not take lease.state'],
    ['lease.activate', { starts_on: '2026-01-01' }, 'lease.activate does not take lease.starts_on'],
    ['lease.end', { end_reason: 'moved out', ends_on: '2026-06-30' }, 'lease.end does not take lease.ends_on'],
    ['lease.activate', { colour: 'red' }, 'unknown field lease.colour'],
  ])('REST %s with %j: 400 %s, nothing changed', async (command, extra, error) => {
    const refused = await t.command(admin, command, { id: lease, ...extra });
    expect(refused).toMatchObject({ status: 400, body: { error } });
    const after = await t.command(admin, 'lease.get', { id: lease });
    expect(after.body.value).toMatchObject({ state: 'draft', notes: null, starts_on: null, ends_on: null });
  });

  it('MCP says the same, as a tool error', async () => {
    const result = (await mcp.client.callTool({ name: 'lease__activate', arguments: { id: lease, notes: 'keys handed over' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('lease.activate does not take lease.notes');
  });
});
