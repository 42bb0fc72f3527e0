/**
 * Every answer a REST test receives from `command()` (test/helpers/server.ts) is checked against
 * the OpenAPI document the server publishes: the schema of that command and status, in the view
 * of the widest caller of its kind — the admin for a session token, an agent with every scope of
 * the admin for an agent token. A narrower caller's answer fits it too (fields it may not read
 * are optional everywhere; masking is the same for every agent), and the check needs neither a
 * request nor the database, so it changes nothing a test counts (an agent's rate limit, its token's
 * last use). `test/http/openapi.test.ts` checks the narrower views themselves.
 *
 * Each schema is compiled once (per document components and schema text) and kept for the run.
 */
import { createHash } from 'node:crypto';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import { tokenKindOf } from '../../runtime/auth/tokens.ts';
import type { AgentCaller, Caller, PersonCaller } from '../../runtime/caller.ts';
import type { OpenApiDocument, Registry } from '../../runtime/registry.ts';
import { ADMIN_ROLE, rightsOf } from '../../runtime/rights.ts';
import { createOpenApiViews, OPENAPI_COMPONENT_NAMES, type CallerKind } from '../../runtime/view/caller-openapi.ts';

type Json = { readonly [key: string]: unknown };

// ajv-formats is CommonJS with its function as the default export's default.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;
// Default settings, as a client's validator has them: a decimal's schema says no `multipleOf`
// (generator/emit/tools.ts), which such a validator would get wrong for values like 33.33.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);

const WIDEST: Record<CallerKind, Caller> = {
  person: { kind: 'person', userId: 'openapi-check', username: 'admin', roles: [ADMIN_ROLE], tokenId: 'openapi-check' } satisfies PersonCaller,
  agent: {
    kind: 'agent', tokenId: 'openapi-check', label: 'openapi-check', scopes: ['*.*'], creatorId: 'openapi-check', creatorUsername: 'admin', creatorRoles: [ADMIN_ROLE],
    limits: { requestsPerMinute: null, writesPerMinute: null },
  } satisfies AgentCaller,
};

interface CheckedDocument {
  readonly document: OpenApiDocument;
  /** Names the document's component schemas, for the cache of compiled schemas. */
  readonly componentsKey: string;
  readonly components: Json;
}

const documents = new WeakMap<Registry, Promise<Record<CallerKind, CheckedDocument>>>();
const compiled = new Map<string, ValidateFunction>();

function documentsOf(registry: Registry): Promise<Record<CallerKind, CheckedDocument>> {
  let found = documents.get(registry);
  if (!found) {
    const views = createOpenApiViews(registry, 'check');
    const checked = async (kind: CallerKind): Promise<CheckedDocument> => {
      const document = await views.documentFor(rightsOf(registry, WIDEST[kind]), kind);
      const components = (document.components as Json).schemas as Json;
      return { document, components, componentsKey: createHash('sha256').update(JSON.stringify(components)).digest('hex') };
    };
    found = Promise.all([checked('person'), checked('agent')]).then(([person, agent]) => ({ person, agent }));
    documents.set(registry, found);
  }
  return found;
}

function resolved(document: OpenApiDocument, node: unknown): Json | undefined {
  const reference = (node as Json | undefined)?.$ref;
  if (typeof reference !== 'string') return node as Json | undefined;
  return reference
    .slice(2)
    .split('/')
    .reduce<unknown>((at, key) => (at as Json | undefined)?.[key], document) as Json | undefined;
}

function validatorOf(checked: CheckedDocument, schema: unknown): ValidateFunction {
  const text = JSON.stringify(schema);
  const key = `${checked.componentsKey}:${text}`;
  let validate = compiled.get(key);
  if (!validate) {
    // `#/components/schemas/…` resolves against the root of what is compiled: give it the components.
    validate = ajv.compile({ allOf: [schema], components: { schemas: checked.components } });
    compiled.set(key, validate);
  }
  return validate;
}

/** Fails the test when the answer of `POST /api/<model>/<command>` does not fit the published document. */
export async function expectDocumentedAnswer(registry: Registry, token: string, commandId: string, answer: { readonly status: number; readonly body: unknown }): Promise<void> {
  const kind: CallerKind = tokenKindOf(token) === 'agent' ? 'agent' : 'person';
  const checked = (await documentsOf(registry))[kind];
  const [model, command] = commandId.split('.');
  const operation = resolved(checked.document, ((checked.document.paths as Json)[`/api/${model}/${command}`] as Json | undefined)?.post);
  const where = `${commandId} → ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 500)}`;
  let schema: unknown;
  if (operation) {
    const response = resolved(checked.document, (operation.responses as Json)[String(answer.status)]);
    expect(response, `status not in the OpenAPI document: ${where}`).toBeDefined();
    schema = ((response!.content as Json)['application/json'] as Json).schema;
  } else {
    // No such command: whatever the refusal, it has the error body.
    expect(answer.status, `a command the OpenAPI document lacks answered: ${where}`).toBeGreaterThanOrEqual(400);
    schema = { $ref: `#/components/schemas/${OPENAPI_COMPONENT_NAMES.error}` };
  }
  const validate = validatorOf(checked, schema);
  if (!validate(answer.body)) expect.fail(`answer does not fit the OpenAPI document: ${where}\n${ajv.errorsText(validate.errors)}`);
}
