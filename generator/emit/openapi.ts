/**
 * `openapi.json`: the OpenAPI 3.1 document of the REST API (SPEC 4.6), every command as
 * `POST /api/<model>/<command>`. Its request and answer schemas come from the builders of the MCP
 * tools (tools.ts), which build them from the zod schemas REST checks bodies with: one copy of
 * each rule. The runtime serves each caller its own view of this document (runtime/http/openapi.ts).
 */
import { createHash } from 'node:crypto';
import { INVALID_TOKEN, MISSING_TOKEN } from '../../runtime/auth/authenticate.ts';
import { HttpError, notFound } from '../../runtime/errors.ts';
import { RATE_LIMITED } from '../../runtime/http/callers.ts';
import { BodyRefusal, refusalOf } from '../../runtime/http/refusals.ts';
import { SUPPORTED_REVISIONS } from '../../runtime/mcp/revisions.ts';
import type { OpenApiDocument } from '../../runtime/registry.ts';
import { OPENAPI_COMPONENT_NAMES } from '../../runtime/view/caller-openapi.ts';
import { dryRunMayBeHeld } from '../../runtime/view/caller-schemas.ts';
import { allModels, forFieldKind, type CommandIR, type FieldIR, type FieldKindTable, type ModelIR, type ProjectIR } from '../ir.ts';
import { projectSource, type Emitter } from './context.ts';
import { commandInputSchema, proposable, recordSchema, resultEnvelope, toolTitle, withoutDialect } from './tools.ts';

type Json = { [key: string]: unknown };

/** An id as the service makes them (a ULID), for examples. */
const EXAMPLE_ID = '01JD3Z8K2M4N6P8R0T2V4X6Z8B';
const EXAMPLE_CHANGE_ID = '01JD3Z9A1C3E5G7J9L1N3Q5S7U';

/** A value of a field's kind for request examples; undefined where none can be chosen without knowing the module's intent (a pattern). */
const EXAMPLE_VALUES: FieldKindTable<unknown> = {
  text: (field) => (field.pattern === undefined ? 'Example'.slice(0, field.length ?? 7) : undefined),
  longtext: (field) => (field.pattern === undefined ? 'Example text'.slice(0, field.length ?? 12) : undefined),
  number: (field) => field.min ?? (field.max !== undefined && field.max < 1 ? field.max : 1),
  money: (field) => field.min ?? (field.max !== undefined && field.max < 1000 ? field.max : 1000),
  date: (field) => field.min ?? field.max ?? '2026-01-15',
  bool: () => true,
  select: (field) => field.options[0],
  ref: () => EXAMPLE_ID,
  decimal: (field) => field.min ?? field.max ?? 1,
  datetime: (field) => field.min ?? field.max ?? '2026-01-15T09:30:00.000Z',
  email: (field) => (field.pattern === undefined ? 'someone@example.com' : undefined),
  url: (field) => (field.pattern === undefined ? 'https://example.com/' : undefined),
  phone: (field) => (field.pattern === undefined ? '+44 20 7946 0000' : undefined),
  multiselect: (field) => field.options.slice(0, 1),
  file: (field) => (field.multiple ? [EXAMPLE_ID] : EXAMPLE_ID),
};

function exampleValue(field: FieldIR): unknown {
  return forFieldKind(EXAMPLE_VALUES, field);
}

/** A request body a caller with every right could send; undefined when the command needs a value no example can be chosen for. */
function requestExample(model: ModelIR, command: CommandIR): Json | undefined {
  switch (command.kind) {
    case 'get':
    case 'delete':
    case 'erase':
      return { id: EXAMPLE_ID };
    case 'history':
      return { id: EXAMPLE_ID, limit: 20 };
    case 'revert':
      return { id: EXAMPLE_ID, change_id: EXAMPLE_CHANGE_ID };
    case 'list':
    case 'search':
      return { order: [{ field: 'id', dir: 'asc' }], limit: 20 };
    case 'create':
      return createExample(model);
    case 'update':
      return { id: EXAMPLE_ID, ...updateExample(model) };
    case 'create_many': {
      const record = createExample(model);
      return record && { records: [record] };
    }
    case 'update_many':
      return { ids: [EXAMPLE_ID], set: updateExample(model), max_affected: 1 };
    case 'delete_many':
      return { ids: [EXAMPLE_ID], max_affected: 1 };
    case 'revert_batch':
      return { batch_id: EXAMPLE_CHANGE_ID };
    case 'action': {
      const values = valuesOf(command.action.inputs.filter(({ input }) => input.required).map(({ input }) => input));
      return values && { id: EXAMPLE_ID, ...values };
    }
    case 'action_many': {
      const values = valuesOf(command.action.inputs.filter(({ input }) => input.required).map(({ input }) => input));
      return values && { ids: [EXAMPLE_ID], max_affected: 1, ...(Object.keys(values).length > 0 ? { input: values } : {}) };
    }
  }
}

/** A record's required fields (none when it must have lines: an example leaves them out). */
function createExample(model: ModelIR): Json | undefined {
  if (model.lines.some((list) => list.min > 0)) return undefined;
  return valuesOf(model.fields.filter((field) => field.required && !field.computed && !field.governed && field.default === undefined));
}

/** One field an update may set, with a value; none when no field has an example. */
function updateExample(model: ModelIR): Json {
  const field = model.fields.find((candidate) => !candidate.computed && !candidate.governed && !candidate.writeRoles && exampleValue(candidate) !== undefined);
  return field ? { [field.name]: exampleValue(field) } : {};
}

function valuesOf(fields: readonly FieldIR[]): Json | undefined {
  const values: Json = {};
  for (const field of fields) {
    const value = exampleValue(field);
    if (value === undefined) return undefined;
    values[field.name] = value;
  }
  return values;
}

function ref(kind: 'schemas' | 'responses' | 'parameters', name: string): Json {
  return { $ref: `#/components/${kind}/${name}` };
}

/** The error body every refusal has, with an example taken from the one refusal mapping (runtime/http/refusals.ts). */
function errorResponse(description: string, example: unknown, headers?: Json): Json {
  const content = { 'application/json': { schema: ref('schemas', 'Error'), ...(example === undefined ? {} : { example }) } };
  return { description, ...(headers ? { headers } : {}), content };
}

function refusalBody(error: unknown): unknown {
  return refusalOf(error, () => {}).body;
}

function components(models: readonly ModelIR[]): Json {
  const integerHeader = (description: string) => ({ description, schema: { type: 'integer' } });
  const rateHeaders = {
    'RateLimit-Limit': integerHeader("An agent's calls allowed in the window."),
    'RateLimit-Remaining': integerHeader('Calls left in the window.'),
    'RateLimit-Reset': integerHeader('Seconds until the window ends.'),
  };
  const schemas: Json = {
    [OPENAPI_COMPONENT_NAMES.error]: {
      type: 'object',
      description: 'Why the call was refused; nothing was changed.',
      properties: {
        error: { type: 'string', description: 'What is wrong, naming the field (<model>.<field>) where there is one.' },
        fields: { type: 'array', items: { type: 'string' }, description: 'A failed rule: the fields it reads.' },
      },
      required: ['error'],
    },
    [OPENAPI_COMPONENT_NAMES.approvalRequired]: {
      type: 'object',
      description: "An agent's call held as a plan for a person to approve (POST /api/approve/<plan_id>); nothing was changed yet.",
      properties: { approval_required: { type: 'boolean', const: true }, plan_id: { type: 'string' } },
      required: ['approval_required', 'plan_id'],
    },
    [OPENAPI_COMPONENT_NAMES.dryRunApprovalRequired]: {
      type: 'object',
      description: "A dry run of an agent's call that would be held as a plan.",
      properties: { dry_run: { type: 'boolean', const: true }, approval_required: { type: 'boolean', const: true } },
      required: ['dry_run', 'approval_required'],
    },
  };
  for (const model of models) {
    schemas[OPENAPI_COMPONENT_NAMES.record(model.name)] = recordSchema(model);
    const list = model.commands.find((command) => command.kind === 'list');
    if (list) schemas[OPENAPI_COMPONENT_NAMES.listInput(model.name)] = withoutDialect(commandInputSchema(model, list));
  }
  return {
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description: 'A session token (POST /api/auth/login) or an agent token (POST /api/auth/agent-token).',
      },
    },
    parameters: {
      DryRun: {
        name: 'dry_run',
        in: 'query',
        required: false,
        description: 'true: run the checks and the command and answer what it would, changing nothing; an answer then carries dry_run: true.',
        schema: { type: 'string', enum: ['true'] },
      },
    },
    responses: {
      ApprovalRequired: {
        description: "An agent's call held as a plan for approval.",
        content: { 'application/json': { schema: ref('schemas', OPENAPI_COMPONENT_NAMES.approvalRequired), example: { approval_required: true, plan_id: EXAMPLE_ID } } },
      },
      BadRequest: errorResponse('The body or an input is not valid: malformed JSON, an unknown or missing field, a value of the wrong kind, a failed rule.', refusalBody(new BodyRefusal('malformed-json'))),
      Unauthorized: errorResponse(`No bearer token, or one that does not work (${INVALID_TOKEN}).`, refusalBody(new HttpError(401, MISSING_TOKEN)), {
        'WWW-Authenticate': { description: 'Bearer, with error="invalid_token" for a token that does not work.', schema: { type: 'string' } },
      }),
      Forbidden: errorResponse('A field the caller may read but not write.', undefined),
      NotFound: errorResponse('No such record, or a command the caller may not use (which is never told apart).', refusalBody(notFound())),
      Conflict: errorResponse('The record cannot take the change in its state (locked, or changed since the change a revert puts back), or a bulk command selects more records than its max_affected. (A unique value taken, or a record still referred to, is a 400.)', undefined),
      PayloadTooLarge: errorResponse('The body is larger than 1 MiB.', refusalBody(new BodyRefusal('too-large'))),
      UnsupportedMediaType: errorResponse('The body is not application/json in UTF-8.', refusalBody(new BodyRefusal('not-json'))),
      TooManyRequests: errorResponse("An agent's rate limit is used up.", refusalBody(new HttpError(429, RATE_LIMITED)), {
        ...rateHeaders,
        'Retry-After': integerHeader('Seconds until a call is accepted again.'),
      }),
      InternalError: errorResponse('A fault of the service, logged; the answer carries no detail.', refusalBody(new Error('an example fault'))),
    },
    schemas,
  };
}

/** Every refusal a command's call can get, by status. */
const ERROR_RESPONSES: Readonly<Record<string, string>> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '409': 'Conflict',
  '413': 'PayloadTooLarge',
  '415': 'UnsupportedMediaType',
  '429': 'TooManyRequests',
  '500': 'InternalError',
};

function operation(model: ModelIR, command: CommandIR): Json {
  const held = proposable(model, command);
  const request = command.kind === 'list' || command.kind === 'search' ? ref('schemas', OPENAPI_COMPONENT_NAMES.listInput(model.name)) : withoutDialect(commandInputSchema(model, command));
  const envelope = resultEnvelope(model, command, ref('schemas', OPENAPI_COMPONENT_NAMES.record(model.name)));
  const answer = dryRunMayBeHeld(command, model.actions) ? { anyOf: [envelope, ref('schemas', OPENAPI_COMPONENT_NAMES.dryRunApprovalRequired)] } : envelope;
  const example = requestExample(model, command);
  return {
    operationId: command.id,
    summary: toolTitle(model, command),
    description: command.description,
    tags: [model.name],
    'x-mcp-tool': `${model.name}__${command.name}`,
    ...(command.needsApproval ? { 'x-needs-approval': true } : {}),
    parameters: [ref('parameters', 'DryRun')],
    requestBody: {
      required: false,
      description: 'The command\'s input as JSON; no body is {}.',
      content: { 'application/json': { schema: request, ...(example ? { example } : {}) } },
    },
    responses: {
      '200': { description: 'Done: {denied, value}, value as the caller sees it.', content: { 'application/json': { schema: answer } } },
      ...(held ? { '202': ref('responses', 'ApprovalRequired') } : {}),
      ...Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([status, name]) => [status, ref('responses', name)])),
    },
  };
}

export function openApiDocument(ir: ProjectIR): OpenApiDocument {
  const models = allModels(ir);
  const paths: Json = {};
  for (const model of models) for (const command of model.commands) paths[`/api/${model.name}/${command.name}`] = { post: operation(model, command) };
  const body = {
    tags: models.map((model) => ({ name: model.name, description: `${model.label}${model.description ? `: ${model.description}` : ''}` })),
    paths,
    components: components(models),
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Record service',
      // Names what the document says: a client generated from one version fits every document of that version.
      version: createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 12),
      description: `The commands of ${ir.modules.map((module) => module.label).join(', ')}. Every command is POST /api/<model>/<command> with a JSON body; the same commands are MCP tools at /mcp (x-mcp).`,
    },
    'x-mcp': { url: '/mcp', transport: 'streamable-http', protocolRevisions: [...SUPPORTED_REVISIONS], tools: 'each command is the tool <model>__<command> (x-mcp-tool)' },
    security: [{ bearer: [] }],
    ...body,
  };
}

export const emitOpenApi: Emitter = (context) => [
  { path: 'openapi.json', source: projectSource(context.ir.modulesDirName), document: () => openApiDocument(context.ir) },
];
