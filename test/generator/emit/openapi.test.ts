/**
 * The generated OpenAPI document (`openapi.json`, generator/emit/openapi.ts) of the fixture
 * modules: every command as `POST /api/<model>/<command>` with the constraints its MCP tool's
 * input schema has (one builder for both), the envelope, the 202 plan answer where an agent's call may be held,
 * every refusal with its body, bearer auth, `x-mcp`, and request examples the command accepts.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { emit, looksGenerated } from '../../../generator/emit/index.ts';
import { openApiDocument } from '../../../generator/emit/openapi.ts';
import { recordSchema, withoutNoise } from '../../../generator/emit/tools.ts';
import { allModels, type ProjectIR } from '../../../generator/ir.ts';
import { loadProject } from '../../../generator/pipeline.ts';
import { SUPPORTED_REVISIONS } from '../../../runtime/mcp/revisions.ts';
import { registry } from '../../fixtures/generated/registry.ts';
import { FIXTURE_MODULES_DIR } from '../../helpers/fixtures.ts';

type Json = { [key: string]: any };

let ir: ProjectIR;
let document: Json;

beforeAll(async () => {
  ir = await loadProject(FIXTURE_MODULES_DIR);
  document = openApiDocument(ir) as Json;
});

const ERROR_STATUSES = ['400', '401', '403', '404', '409', '413', '415', '429', '500'];

/** A schema's keywords without its descriptions (a property named `description` stays: its value is a schema). */
function constraintsOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(constraintsOf);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(Object.entries(schema).filter(([key, value]) => !(key === 'description' && typeof value === 'string')).map(([key, value]) => [key, constraintsOf(value)]));
}

/** The part of a bulk command's input that is a single command's input. */
const BULK_PARTS: Readonly<Record<string, string>> = { create_many: 'records', update_many: 'set', action_many: 'input' };

function operationOf(commandId: string): Json {
  return document.paths[`/api/${commandId.replace('.', '/')}`].post;
}

/** The schema of each command's MCP tool, by command id. */
function toolOf(commandId: string): Json {
  return Object.values(registry.tools).find((tool) => tool.command === commandId)! as Json;
}

describe('openapi.json', () => {
  it('is the document emitted, printed as JSON with the banner as its first member, and the registry serves it', async () => {
    const text = emit(ir).get('openapi.json')!;
    expect(looksGenerated(text)).toBe(true);
    const parsed = JSON.parse(text);
    expect(Object.keys(parsed)[0]).toBe('x-generated');
    const { 'x-generated': _banner, ...rest } = parsed;
    expect(rest).toEqual(document);
    expect(await registry.openapi()).toEqual(parsed);
  });

  it('is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(structuredClone(document));
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  });

  it('advertises MCP at /mcp with its protocol revisions, and bearer auth', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document['x-mcp']).toMatchObject({ url: '/mcp', transport: 'streamable-http', protocolRevisions: [...SUPPORTED_REVISIONS] });
    expect(document.security).toEqual([{ bearer: [] }]);
    expect(document.components.securitySchemes).toEqual({ bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }) });
    expect(document.info.version).toMatch(/^[0-9a-f]{12}$/);
  });

  it('has every command, in catalogue order, as POST /api/<model>/<command> naming its MCP tool', () => {
    expect(Object.keys(document.paths)).toEqual(Object.keys(registry.commands).map((id) => `/api/${id.replace('.', '/')}`));
    for (const [id, command] of Object.entries(registry.commands)) {
      const item = document.paths[`/api/${command.model}/${command.name}`];
      expect(Object.keys(item), id).toEqual(['post']);
      expect(item.post, id).toMatchObject({ operationId: id, tags: [command.model], description: command.description, 'x-mcp-tool': toolOf(id).name, summary: toolOf(id).title });
    }
  });

  it("takes each command's input with its MCP tool's constraints (one builder for both; the tool's worded for a model, without zod's noise)", () => {
    for (const [id, command] of Object.entries(registry.commands)) {
      let schema = operationOf(id).requestBody.content['application/json'].schema;
      if (command.kind === 'list' || command.kind === 'search') schema = document.components.schemas[schema.$ref.split('/').pop()];
      // A bulk command's record, set or input is the single command's (next test); its tool names that tool.
      const part = BULK_PARTS[command.kind];
      if (part) schema = { ...schema, properties: { ...schema.properties, [part]: toolOf(id).inputSchema.properties[part] } };
      expect(constraintsOf(withoutNoise(schema)), id).toEqual(constraintsOf(toolOf(id).inputSchema));
    }
  });

  it("gives a bulk command's records, set and input as the single command's input, without id, and its filter as the list's", () => {
    const inputOf = (commandId: string) => operationOf(commandId).requestBody.content['application/json'].schema;
    const withoutId = (schema: Json) => {
      const { id: _id, ...properties } = schema.properties;
      const required = (schema.required ?? []).filter((name: string) => name !== 'id');
      const { required: _required, ...rest } = schema;
      return { ...rest, properties, ...(required.length > 0 ? { required } : {}) };
    };
    const constraints = (schema: unknown) => constraintsOf(withoutNoise(schema));
    let checked = 0;
    for (const [id, command] of Object.entries(registry.commands)) {
      const schema = inputOf(id);
      const model = command.model;
      const listFilter = document.components.schemas[`${model[0]!.toUpperCase()}${model.slice(1)}ListInput`].properties.filter;
      if (command.kind === 'create_many') expect(constraints(schema.properties.records.items), id).toEqual(constraints(inputOf(`${model}.create`)));
      if (command.kind === 'update_many') expect(constraints(schema.properties.set), id).toEqual(constraints({ ...withoutId(inputOf(`${model}.update`)), minProperties: 1 }));
      if (command.kind === 'action_many') expect(constraints(schema.properties.input), id).toEqual(constraints(withoutId(inputOf(id.replace(/_many$/, '')))));
      if (command.kind === 'update_many' || command.kind === 'delete_many' || command.kind === 'action_many') {
        expect(constraints(schema.properties.filter), id).toEqual(constraints(listFilter));
        expect(constraints(toolOf(id).inputSchema.properties.filter.items.properties.field), id).toEqual(constraints(listFilter.items.properties.field));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(4);
  });

  it("answers the envelope around the model's record schema", () => {
    for (const model of allModels(ir)) {
      expect(document.components.schemas[`${model.name[0]!.toUpperCase()}${model.name.slice(1)}Record`], model.name).toEqual(recordSchema(model));
    }
    for (const id of Object.keys(registry.commands)) {
      const answer = operationOf(id).responses['200'].content['application/json'].schema;
      const envelope = answer.anyOf ? answer.anyOf[0] : answer;
      expect(envelope.required, id).toEqual(['denied', 'value']);
      expect(envelope.properties.denied, id).toEqual({ type: 'array', items: { type: 'string' }, description: 'Fields withheld from you, as <model>.<field>.' });
    }
    expect(operationOf('lead.get').responses['200'].content['application/json'].schema.properties.value).toEqual({ $ref: '#/components/schemas/LeadRecord' });
    expect(operationOf('lead.search').responses['200'].content['application/json'].schema.properties.value.properties.rows.items).toEqual({ $ref: '#/components/schemas/LeadRecord' });
  });

  it('marks the commands an agent may only propose, with the 202 plan answer where a call may be held', () => {
    for (const [id, command] of Object.entries(registry.commands)) {
      const operation = operationOf(id);
      expect(operation['x-needs-approval'], id).toBe(command.needsApproval ? true : undefined);
      const model = registry.models[command.model]!;
      const held = command.needsApproval || (command.kind === 'update' && model.actions.some((action) => action.needsApproval));
      expect(operation.responses['202'], id).toEqual(held ? { $ref: '#/components/responses/ApprovalRequired' } : undefined);
    }
    expect(document.components.schemas.ApprovalRequired).toMatchObject({ required: ['approval_required', 'plan_id'] });
  });

  it('lists every refusal with the error body and an example from the refusal mapping', () => {
    for (const id of Object.keys(registry.commands)) expect(Object.keys(operationOf(id).responses).filter((status) => status >= '400'), id).toEqual(ERROR_STATUSES);
    const responses = document.components.responses;
    expect(responses.Unauthorized.content['application/json'].example).toEqual({ error: 'missing bearer token' });
    expect(Object.keys(responses.Unauthorized.headers)).toEqual(['WWW-Authenticate']);
    expect(responses.NotFound.content['application/json'].example).toEqual({ error: 'not found' });
    expect(responses.TooManyRequests.content['application/json'].example).toEqual({ error: 'rate limit exceeded' });
    expect(Object.keys(responses.TooManyRequests.headers)).toContain('Retry-After');
    expect(responses.UnsupportedMediaType.content['application/json'].example).toEqual({ error: 'Content-Type must be application/json' });
    expect(responses.InternalError.content['application/json'].example).toEqual({ error: 'internal error' });
  });

  it("gives request examples that the command's zod schema and the document's schema both accept", () => {
    const ajv = new Ajv2020({ strict: false });
    let examples = 0;
    for (const [id, command] of Object.entries(registry.commands)) {
      const media = operationOf(id).requestBody.content['application/json'];
      if (media.example === undefined) continue;
      examples++;
      const parsed = command.input.safeParse(media.example);
      expect(parsed.success, `${id}: ${JSON.stringify(media.example)} ${parsed.error?.issues[0]?.message}`).toBe(true);
      expect(ajv.validate({ allOf: [media.schema], components: document.components }, media.example), `${id} ${ajv.errorsText()}`).toBe(true);
    }
    // Every command but a create whose module asks for a form no example can guess.
    expect(examples).toBeGreaterThanOrEqual(Object.keys(registry.commands).length - 2);
  });
});
