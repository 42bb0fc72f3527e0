/**
 * `GET /api/openapi.json` over real HTTP: each caller's own view of the OpenAPI 3.1 document —
 * the admin's (every command), a role's with a field withheld, an agent's with personal fields as
 * masking tokens and the commands it may only propose marked — each valid by two independent
 * validators, each turned into a TypeScript client by openapi-typescript that type-checks (with
 * the withheld field missing from the role's types), and each describing the answers that caller
 * really gets.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate as readmeValidate } from '@readme/openapi-parser';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOT_AN_AGENTS_KINDS, SERVICE_COMMANDS } from '../../runtime/command-kinds.ts';
import { SUPPORTED_REVISIONS } from '../../runtime/mcp/revisions.ts';
import { registry } from '../fixtures/generated/registry.ts';
import { agentToken, startTestServer, type TestServer } from '../helpers/server.ts';

type Json = { [key: string]: any };

const SERVICE = { name: 'Acme records', colour: '#1f2735', locale: null };
/** Scopes of the agent: everything of three models. */
const AGENT_SCOPES = ['party.*', 'lead.*', 'invoice.*'];

let t: TestServer;
let tokens: Record<'admin' | 'sales' | 'agent', string>;
let documents: Record<'admin' | 'sales' | 'agent', Json>;

beforeAll(async () => {
  t = await startTestServer({ serviceInfo: SERVICE });
  const admin = await t.login();
  tokens = { admin, sales: await t.addPerson('sam', ['sales']), agent: await agentToken(t, admin, AGENT_SCOPES, 'books-bot') };
  const fetched = await Promise.all(
    (['admin', 'sales', 'agent'] as const).map(async (who) => {
      const res = await t.request('GET', '/api/openapi.json', undefined, tokens[who]);
      expect(res.status, who).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      return [who, res.body] as const;
    }),
  );
  documents = Object.fromEntries(fetched) as typeof documents;
});

afterAll(async () => {
  await t?.close();
});

const CALLERS = ['admin', 'sales', 'agent'] as const;

function pathOf(commandId: string): string {
  return `/api/${commandId.replace('.', '/')}`;
}

/** The commands a role may use, in catalogue order. */
function commandsOf(role: string): string[] {
  return Object.keys(registry.commands).filter((id) => registry.roles[role]!.includes(id));
}

function operationOf(document: Json, commandId: string): Json {
  return document.paths[pathOf(commandId)].post;
}

it('answers 401 with the bearer challenge without a token, and for a token that does not work', async () => {
  const missing = await t.request('GET', '/api/openapi.json');
  expect([missing.status, missing.body, missing.headers.get('www-authenticate')]).toEqual([401, { error: 'missing bearer token' }, 'Bearer']);
  const invalid = await t.request('GET', '/api/openapi.json', undefined, 'rms_s_not-a-token');
  expect(invalid.status).toBe(401);
});

describe.each(CALLERS)("the %s's document", (who) => {
  it('is valid OpenAPI 3.1 by @seriousme/openapi-schema-validator', async () => {
    const result = await new Validator().validate(structuredClone(documents[who]));
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(documents[who].openapi).toBe('3.1.0');
  });

  it('is valid OpenAPI 3.1 by @readme/openapi-parser', async () => {
    const result = await readmeValidate(structuredClone(documents[who]) as never);
    expect(result).toEqual({ valid: true, warnings: [], specification: 'OpenAPI' });
  });

  it('advertises MCP in x-mcp, names the service, asks for a bearer token', () => {
    const document = documents[who];
    expect(document['x-mcp']).toMatchObject({ url: '/mcp', transport: 'streamable-http', protocolRevisions: [...SUPPORTED_REVISIONS] });
    expect(document.info.title).toBe(SERVICE.name);
    expect(document.security).toEqual([{ bearer: [] }]);
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document['x-generated']).toBeUndefined();
  });

  it('lists every error status with the error body on every command', () => {
    for (const [path, item] of Object.entries(documents[who].paths as Json)) {
      // The webhook commands have no field rights (403) nor versions (409): test/http/webhooks-openapi.test.ts.
      const statuses = path.startsWith('/api/webhook/') ? ['400', '401', '404', '413', '415', '429', '500'] : ['400', '401', '403', '404', '409', '413', '415', '429', '500'];
      for (const status of statuses) {
        const response = item.post.responses[status];
        expect(response, `${path} ${status}`).toBeDefined();
        const resolved = documents[who].components.responses[response.$ref.split('/').pop()];
        expect(resolved.content['application/json'].schema, `${path} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
  });
});

describe("what each caller's document holds", () => {
  it('admin: every command, none marked for approval and no plan answer (a person is never held)', () => {
    const admin = documents.admin;
    // The webhook commands too, after the modules' (test/http/webhooks-openapi.test.ts checks them).
    expect(Object.keys(admin.paths)).toEqual([...Object.keys(registry.commands).map(pathOf), ...[...SERVICE_COMMANDS.keys()].map(pathOf)]);
    for (const item of Object.values(admin.paths as Json)) {
      expect(item.post['x-needs-approval']).toBeUndefined();
      expect(item.post.responses['202']).toBeUndefined();
      expect(item.post.responses['200'].content['application/json'].schema.anyOf).toBeUndefined();
    }
    expect(Object.keys(admin.components.schemas.PartyRecord.properties)).toContain('tax_id');
    expect(admin.components.schemas.PartyRecord.properties.name).toMatchObject({ type: 'string' });
  });

  it('a role: only its commands and models; the field it may not read absent from records, inputs, filters and examples', () => {
    const sales = documents.sales;
    expect(Object.keys(sales.paths)).toEqual(commandsOf('sales').map(pathOf));
    const models = [...new Set(commandsOf('sales').map((id) => id.split('.')[0]!))];
    const records = models.flatMap((model) => [`${model[0]!.toUpperCase()}${model.slice(1)}Record`, `${model[0]!.toUpperCase()}${model.slice(1)}ListInput`]);
    expect(Object.keys(sales.components.schemas).sort()).toEqual(['ApprovalRequired', 'DryRunApprovalRequired', 'Error', ...records].sort());
    expect(sales.tags.map((tag: Json) => tag.name)).toEqual(models);
    expect(Object.keys(sales.components.schemas.PartyRecord.properties)).not.toContain('tax_id');
    expect(Object.keys(operationOf(sales, 'party.create').requestBody.content['application/json'].schema.properties)).not.toContain('tax_id');
    expect(Object.keys(operationOf(sales, 'party.update').requestBody.content['application/json'].schema.properties)).not.toContain('tax_id');
    expect(sales.components.schemas.PartyListInput.properties.filter.items.properties.field.enum).not.toContain('tax_id');
    expect(sales.components.schemas.PartyListInput.properties.order.items.properties.field.enum).not.toContain('tax_id');
    expect(JSON.stringify(sales)).not.toContain('tax_id');
  });

  it('an agent: personal fields as its masking tokens, fields withheld from agents absent, approval-needing commands marked with their plan answer', () => {
    const agent = documents.agent;
    // No agent has an admin-only command (erase), nor a bulk one but delete_many, whatever its scopes.
    const expected = Object.keys(registry.commands).filter((id) => AGENT_SCOPES.some((scope) => id.startsWith(scope.slice(0, -1))) && !NOT_AN_AGENTS_KINDS.has(registry.commands[id]!.kind));
    expect(Object.keys(agent.paths)).toEqual(expected.map(pathOf));
    const party = agent.components.schemas.PartyRecord.properties;
    expect(party.name).toMatchObject({ type: 'string', pattern: '^NAME_[1-9][0-9]*$' });
    expect(party.email).toMatchObject({ type: ['string', 'null'], pattern: '^EMAIL_[1-9][0-9]*$' });
    expect(party.name.description).toContain('Personal: comes back masked as a token like NAME_1.');
    expect(Object.keys(party)).not.toContain('tax_id');
    expect(Object.keys(agent.components.schemas.InvoiceRecord.properties)).not.toContain('internal_note');
    // Its inputs take a personal value, or a token it received for one.
    const update = operationOf(agent, 'party.update').requestBody.content['application/json'].schema.properties;
    expect(update.name.anyOf[1]).toEqual({ type: 'string', pattern: '^NAME_[1-9][0-9]*$' });
    expect(update.name.anyOf[0]).toMatchObject({ type: 'string' });
    expect(update.name.description).toContain('Name');
    expect(documents.admin.paths['/api/party/update'].post.requestBody.content['application/json'].schema.properties.name.anyOf).toBeUndefined();
    // Only fields read in clear are filtered and ordered on.
    expect(agent.components.schemas.PartyListInput.properties.filter.items.properties.field.enum).not.toContain('name');
    // A bulk command's parts as the single command's, fitted alike: records, set and the filter.
    const bodyOf = (id: string) => operationOf(agent, id).requestBody.content['application/json'].schema.properties;
    const record = bodyOf('party.create_many').records.items.properties;
    expect(record.name.anyOf[1]).toEqual({ type: 'string', pattern: '^NAME_[1-9][0-9]*$' });
    expect(Object.keys(record)).not.toContain('tax_id');
    const updateMany = bodyOf('party.update_many');
    expect(updateMany.set.properties.email.anyOf.at(-1)).toEqual({ type: 'string', pattern: '^EMAIL_[1-9][0-9]*$' });
    expect(Object.keys(updateMany.set.properties)).not.toContain('tax_id');
    expect(Object.keys(updateMany.set.properties)).not.toContain('id');
    for (const id of ['party.update_many', 'party.delete_many']) {
      expect(bodyOf(id).filter.items.properties.field.enum, id).toEqual(agent.components.schemas.PartyListInput.properties.filter.items.properties.field.enum);
    }
    expect(Object.keys(bodyOf('invoice.create_many').records.items.properties)).not.toContain('internal_note');
    for (const id of expected) {
      const operation = operationOf(agent, id);
      expect(operation['x-needs-approval'], id).toBe(registry.commands[id]!.needsApproval ? true : undefined);
      if (registry.commands[id]!.needsApproval) expect(operation.responses['202'], id).toEqual({ $ref: '#/components/responses/ApprovalRequired' });
    }
    expect(operationOf(agent, 'invoice.post')['x-needs-approval']).toBe(true);
    expect(operationOf(agent, 'party.delete')['x-needs-approval']).toBe(true);
    expect(operationOf(agent, 'party.get')['x-needs-approval']).toBeUndefined();
  });

  it("describes the answers each caller gets: an agent's tokens fit its document, clear values do not", async () => {
    const created = await t.command(tokens.admin, 'party.create', { name: 'Ada Lovelace', email: 'ada@example.com', tax_id: 'GB-1' });
    expect(created.status).toBe(200);
    const id = created.body.value.id;
    const ajv = new Ajv2020({ strict: false });
    const check = (who: keyof typeof documents, body: unknown) => {
      const document = documents[who];
      const schema = operationOf(document, 'party.get').responses['200'].content['application/json'].schema;
      return ajv.validate({ allOf: [schema], components: { schemas: document.components.schemas } }, body);
    };
    const seenByAgent = await t.command(tokens.agent, 'party.get', { id });
    expect(seenByAgent.status).toBe(200);
    expect(seenByAgent.body.value.name).toMatch(/^NAME_[0-9]+$/);
    expect(check('agent', seenByAgent.body)).toBe(true);
    const seenByAdmin = await t.command(tokens.admin, 'party.get', { id });
    expect(check('admin', seenByAdmin.body)).toBe(true);
    expect(check('agent', seenByAdmin.body)).toBe(false);
    const written = await t.command(tokens.agent, 'party.update', { id, name: seenByAgent.body.value.name });
    expect(written.status).toBe(200);
    const updateSchema = operationOf(documents.agent, 'party.update').requestBody.content['application/json'].schema;
    expect(ajv.validate({ allOf: [updateSchema], components: { schemas: documents.agent.components.schemas } }, { id, name: seenByAgent.body.value.name })).toBe(true);
    const held = await t.command(tokens.agent, 'party.delete', { id });
    expect(held.status).toBe(202);
  });

  it('is the same for every caller with the same rights', async () => {
    const again = await t.request('GET', '/api/openapi.json', undefined, await t.addPerson('sue', ['sales']));
    expect(again.body).toEqual(documents.sales);
  });
});

describe('a client generated by openapi-typescript', () => {
  it("type-checks for each caller's document, and the role's types lack the field it may not read", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rmsgen-openapi-client-'));
    try {
      for (const who of CALLERS) writeFileSync(join(dir, `${who}.d.ts`), astToString(await openapiTS(documents[who] as never)));
      writeFileSync(
        join(dir, 'use.ts'),
        [
          "import type { components as Admin, paths as AdminPaths } from './admin.d.ts';",
          "import type { components as Sales } from './sales.d.ts';",
          "import type { components as Agent, operations as AgentOperations } from './agent.d.ts';",
          "type GetParty = AdminPaths['/api/party/get']['post'];",
          "export const body: NonNullable<GetParty['requestBody']>['content']['application/json'] = { id: '01JD3Z8K2M4N6P8R0T2V4X6Z8B' };",
          "export function taxId(answer: GetParty['responses'][200]['content']['application/json']): string | null | undefined { return answer.value.tax_id; }",
          "export function adminTaxId(record: Admin['schemas']['PartyRecord']): string | null | undefined { return record.tax_id; }",
          // The role's record has no tax_id: reading it does not compile.
          "// @ts-expect-error tax_id is withheld from the sales role",
          "export function salesTaxId(record: Sales['schemas']['PartyRecord']): unknown { return record.tax_id; }",
          "export function planId(answer: AgentOperations['invoice.post']['responses'][202]['content']['application/json']): string { return answer.plan_id; }",
          "export function agentName(record: Agent['schemas']['PartyRecord']): string | undefined { return record.name; }",
          '',
        ].join('\n'),
      );
      const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
      const args = [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--allowImportingTsExtensions', join(dir, 'use.ts')];
      let output = '';
      try {
        execFileSync(process.execPath, args, { encoding: 'utf8', cwd: dir });
      } catch (error) {
        output = String((error as { stdout?: string }).stdout ?? error);
      }
      expect(output).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
