/**
 * The webhook commands in the OpenAPI document (view/caller-openapi.ts adds them to the document of
 * a caller who may run them: a person with `admin`; no one else sees them). Their inputs and
 * answers as commands.ts takes and gives them; the refusals are the document's shared responses.
 * They are the service's own commands, not the modules', so `rmsgen build`'s generated/openapi.json
 * (the modules' commands) does not list them.
 */
import type { JsonSchema } from '../registry.ts';

const TAG = 'webhook';
const ID = { type: 'string', minLength: 1, description: "The webhook's id." } as const;
const SECRET = { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$', description: 'whsec_ and the base64 of 24 to 64 random bytes (Standard Webhooks).' } as const;
const NAMES = (what: string) => ({
  anyOf: [{ type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1, uniqueItems: true }, { type: 'null' }],
  description: `${what}; null or left out: all.`,
});
const SETTINGS = {
  url: { type: 'string', format: 'uri', description: 'The http or https URL events are sent to; internal addresses are refused unless the server allows them.' },
  models: NAMES('The models whose events are sent'),
  commands: NAMES('The commands (create, update, an action, …) whose events are sent'),
  as_role: { type: 'string', minLength: 1, description: 'The role whose field rights shape what is sent.' },
  secret: SECRET,
  secrets: { type: 'array', items: SECRET, minItems: 1, maxItems: 2, description: 'One or two secrets (the old and the new while rotating); each signs every request.' },
} as const;

const WEBHOOK_REF = { $ref: '#/components/schemas/Webhook' };

const WEBHOOK_PROPERTIES = {
  id: { type: 'string' },
  url: { type: 'string' },
  models: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] },
  commands: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] },
  as_role: { type: 'string' },
  secret_count: { type: 'integer', minimum: 1, maximum: 2 },
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
  created_by: { type: 'string' },
} as const;
const WEBHOOK_REQUIRED = Object.keys(WEBHOOK_PROPERTIES);

/** The component schemas the operations refer to. */
export const WEBHOOK_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  Webhook: {
    type: 'object',
    description: 'A webhook subscription; its secrets are never answered, only how many sign.',
    properties: WEBHOOK_PROPERTIES,
    required: WEBHOOK_REQUIRED,
    additionalProperties: false,
  },
  WebhookDelivery: {
    type: 'object',
    description: "An event's delivery to a webhook: pending (due, retrying or in flight), delivered, or dead (retried for 24 h).",
    properties: {
      event_id: { type: 'string' },
      type: { type: 'string', description: 'The command of the event, <model>.<command>.' },
      record_id: { type: 'string' },
      record_seq: { type: 'integer', minimum: 1 },
      status: { type: 'string', enum: ['pending', 'delivered', 'dead'] },
      attempts: { type: 'integer', minimum: 0 },
      last_attempt_at: { type: ['string', 'null'], format: 'date-time' },
      last_status: { type: ['integer', 'null'] },
      last_error: { type: ['string', 'null'] },
      next_attempt_at: { type: ['string', 'null'], format: 'date-time' },
      delivered_at: { type: ['string', 'null'], format: 'date-time' },
    },
    required: ['event_id', 'type', 'record_id', 'record_seq', 'status', 'attempts', 'last_attempt_at', 'last_status', 'last_error', 'next_attempt_at', 'delivered_at'],
    additionalProperties: false,
  },
};

interface Operation {
  readonly summary: string;
  readonly input: JsonSchema;
  readonly value: JsonSchema;
  readonly example: JsonSchema;
}

const object = (properties: Record<string, unknown>, required: readonly string[] = []): JsonSchema => ({ type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false });
const EXAMPLE_ID = '01JD3Z8K2M4N6P8R0T2V4X6Z8B';

const OPERATIONS: Readonly<Record<string, Operation>> = {
  'webhook.create': {
    summary: 'Create a webhook: the only answer that shows its secrets (one is generated when none is given)',
    input: object(SETTINGS, ['url', 'as_role']),
    value: object({ ...WEBHOOK_PROPERTIES, secrets: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 } }, [...WEBHOOK_REQUIRED, 'secrets']),
    example: { url: 'https://erp.example.com/hooks/rms', as_role: 'sales', models: ['lead'] },
  },
  'webhook.list': { summary: 'List the webhooks, oldest first', input: object({}), value: { type: 'array', items: WEBHOOK_REF }, example: {} },
  'webhook.get': { summary: 'Get a webhook', input: object({ id: ID }, ['id']), value: WEBHOOK_REF, example: { id: EXAMPLE_ID } },
  'webhook.update': {
    summary: 'Change a webhook: what is given replaces what it had (secrets: rotate)',
    input: object({ id: ID, ...SETTINGS, rotate: { type: 'string', enum: ['add', 'drop_old'], description: 'add: a new secret (answered once, as new_secret) besides the current one; drop_old: keep only the newer.' } }, ['id']),
    value: object({ ...WEBHOOK_PROPERTIES, new_secret: { type: 'string' } }, WEBHOOK_REQUIRED),
    example: { id: EXAMPLE_ID, url: 'https://erp.example.com/hooks/rms2' },
  },
  'webhook.delete': { summary: 'Delete a webhook and its deliveries', input: object({ id: ID }, ['id']), value: object({ id: { type: 'string' } }, ['id']), example: { id: EXAMPLE_ID } },
  'webhook.deliveries': {
    summary: "List a webhook's deliveries, newest event first",
    input: object(
      {
        id: ID,
        status: { type: 'string', enum: ['pending', 'delivered', 'dead'] },
        event_id: { type: 'string', minLength: 1 },
        limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
        offset: { type: 'integer', minimum: 0, default: 0 },
      },
      ['id'],
    ),
    value: object({ rows: { type: 'array', items: { $ref: '#/components/schemas/WebhookDelivery' } }, total: { type: 'integer', minimum: 0 } }, ['rows', 'total']),
    example: { id: EXAMPLE_ID, status: 'dead' },
  },
  'webhook.redeliver': {
    summary: 'Send one event again (event_id), or every dead one (dead: true): due at once, with a new day of retries',
    input: {
      ...object({ id: ID, event_id: { type: 'string', minLength: 1 }, dead: { const: true } }, ['id']),
      oneOf: [{ required: ['event_id'] }, { required: ['dead'] }],
    },
    value: object({ redelivered: { type: 'integer', minimum: 0 } }, ['redelivered']),
    example: { id: EXAMPLE_ID, dead: true },
  },
};

/** The refusals a webhook command may answer (no dry run, no plan, no conflict: they are the admin's own). */
const REFUSALS = ['400', '401', '404', '413', '415', '429', '500'] as const;
const REFUSAL_NAMES: Record<(typeof REFUSALS)[number], string> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '404': 'NotFound',
  '413': 'PayloadTooLarge',
  '415': 'UnsupportedMediaType',
  '429': 'TooManyRequests',
  '500': 'InternalError',
};

/** The operations by path (`/api/webhook/<command>`), and the tag they are under. */
export function webhookPaths(): Record<string, JsonSchema> {
  const paths: Record<string, JsonSchema> = {};
  for (const [id, operation] of Object.entries(OPERATIONS)) {
    const name = id.slice(id.indexOf('.') + 1);
    paths[`/api/webhook/${name}`] = {
      post: {
        operationId: id,
        summary: operation.summary,
        tags: [TAG],
        requestBody: {
          required: false,
          description: "The command's input as JSON; no body is {}.",
          content: { 'application/json': { schema: operation.input, example: operation.example } },
        },
        responses: {
          '200': {
            description: 'Done: {denied, value} (denied is always empty).',
            content: { 'application/json': { schema: object({ denied: { type: 'array', items: { type: 'string' }, maxItems: 0 }, value: operation.value }, ['denied', 'value']) } },
          },
          ...Object.fromEntries(REFUSALS.map((status) => [status, { $ref: `#/components/responses/${REFUSAL_NAMES[status]}` }])),
        },
      },
    };
  }
  return paths;
}

export const WEBHOOK_TAG = { name: TAG, description: "Webhooks: subscriptions to the service's events (admin only)." } as const;
