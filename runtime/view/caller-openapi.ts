/**
 * The OpenAPI document as a caller sees it (`GET /api/openapi.json`): the generated document
 * (`registry.openapi()`, generator/emit/openapi.ts) fitted by the same per-caller selection and
 * schema fitting as MCP's tool list (caller-schemas.ts):
 * - only the commands the caller may use, and the record schemas of their models;
 * - inputs and records without the fields withheld from it; list filters and orders on the fields
 *   it reads in clear only;
 * - for an agent, its masked (personal) fields described as the masking tokens it receives, and
 *   the commands it may only propose marked `x-needs-approval` with their 202 plan answer; a
 *   person's calls are never held, so its document has neither;
 * - for a person with `admin`, the webhook commands (webhooks/openapi.ts); no one else sees them.
 */
import type { CommandMeta, FieldMeta, JsonSchema, OpenApiDocument, Registry } from '../registry.ts';
import type { CallerRights, FieldRights, ModelRights } from '../rights.ts';
import { dryRunMayBeHeld, fitInputSchema, fitRecord, isSchema, mayBeHeldForApproval, usableWith } from './caller-schemas.ts';
import { WEBHOOK_SCHEMAS, WEBHOOK_TAG, webhookPaths } from '../webhooks/openapi.ts';

/** Names of the document's component schemas, which the generator writes and this fits. */
export const OPENAPI_COMPONENT_NAMES = {
  error: 'Error',
  approvalRequired: 'ApprovalRequired',
  dryRunApprovalRequired: 'DryRunApprovalRequired',
  /** A record of a model as commands answer it. */
  record: (model: string) => `${pascal(model)}Record`,
  /** The input of a model's list and search. */
  listInput: (model: string) => `${pascal(model)}ListInput`,
} as const;

function pascal(name: string): string {
  return name
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

export type CallerKind = 'person' | 'agent';

export interface OpenApiViews {
  /**
   * The document for a caller with these rights; built on first use, then kept with the rights.
   * `withWebhooks`: the caller may run the webhook commands (a person with `admin`), which the
   * document then lists too (webhooks/openapi.ts).
   */
  documentFor(rights: CallerRights, kind: CallerKind, withWebhooks?: boolean): Promise<OpenApiDocument>;
}

/** `title`: what the service calls itself (`serve --name`), the document's `info.title`. */
export function createOpenApiViews(registry: Registry, title: string): OpenApiViews {
  // Rights objects are cached and reused by `rightsOf`; keyed weakly so evicted ones go too.
  const documents: Record<CallerKind | 'admin', WeakMap<CallerRights, OpenApiDocument>> = { person: new WeakMap(), agent: new WeakMap(), admin: new WeakMap() };
  return {
    async documentFor(rights, kind, withWebhooks = false) {
      const kept = documents[withWebhooks ? 'admin' : kind];
      let document = kept.get(rights);
      if (!document) {
        const fitted = fitDocument(await registry.openapi(), registry, rights, kind, title);
        document = Object.freeze(withWebhooks ? withWebhookCommands(fitted) : fitted);
        kept.set(rights, document);
      }
      return document;
    },
  };
}

type Json = { [key: string]: unknown };

function objectAt(node: unknown, ...path: string[]): Json {
  let current = node;
  for (const key of path) current = isSchema(current) ? current[key] : undefined;
  if (!isSchema(current)) throw new Error(`the OpenAPI document has no ${path.join('.')}: run rmsgen build`);
  return current as Json;
}

function fitDocument(document: OpenApiDocument, registry: Registry, rights: CallerRights, kind: CallerKind, title: string): OpenApiDocument {
  // The file's banner is for whoever opens generated/openapi.json, not for the API's clients.
  const { 'x-generated': _banner, ...generated } = document;
  const generatedSchemas = objectAt(generated, 'components', 'schemas');
  const paths: Json = {};
  const models = new Map<string, ModelRights>();
  for (const command of Object.values(registry.commands)) {
    const fields = usableWith(rights, command);
    if (!fields) continue;
    const path = `/api/${command.model}/${command.name}`;
    paths[path] = { post: fitOperation(command, fields, kind, objectAt(generated, 'paths', path, 'post')) };
    models.set(command.model, fields);
  }
  const schemas: Json = {};
  for (const [name, schema] of Object.entries(generatedSchemas)) if (!Object.values(registry.models).some((model) => ownsComponent(model.name, name))) schemas[name] = schema;
  for (const [model, fields] of models) {
    const record = OPENAPI_COMPONENT_NAMES.record(model);
    schemas[record] = fitRecord(objectAt(generatedSchemas, record), fields, 'output');
    const listInput = OPENAPI_COMPONENT_NAMES.listInput(model);
    const list = registry.commands[`${model}.list`];
    if (generatedSchemas[listInput] && list) schemas[listInput] = fitInputSchema(list, fields, objectAt(generatedSchemas, listInput));
  }
  const tags = (generated.tags as readonly Json[] | undefined)?.filter((tag) => models.has(tag.name as string));
  return {
    ...generated,
    info: { ...objectAt(generated, 'info'), title },
    ...(tags ? { tags } : {}),
    paths,
    components: { ...objectAt(generated, 'components'), schemas },
  };
}

/** The document with the webhook commands, their schemas and their tag. */
function withWebhookCommands(document: OpenApiDocument): OpenApiDocument {
  const components = objectAt(document, 'components');
  return {
    ...document,
    tags: [...((document.tags as readonly Json[] | undefined) ?? []), WEBHOOK_TAG],
    paths: { ...objectAt(document, 'paths'), ...webhookPaths() },
    components: { ...components, schemas: { ...objectAt(components, 'schemas'), ...WEBHOOK_SCHEMAS } },
  };
}

function ownsComponent(model: string, name: string): boolean {
  return name === OPENAPI_COMPONENT_NAMES.record(model) || name === OPENAPI_COMPONENT_NAMES.listInput(model);
}

function fitOperation(command: CommandMeta, fields: ModelRights, kind: CallerKind, operation: Json): Json {
  // Whether a call is held is the registry's to say (the document only mirrors it).
  const { 'x-needs-approval': _marked, responses, requestBody, ...rest } = operation;
  const { '200': success, '202': _held, ...refusals } = objectAt(responses);
  const held = kind === 'agent' && mayBeHeldForApproval(command, fields.model.actions);
  const media = objectAt(requestBody, 'content', 'application/json');
  // list and search refer to their model's list input component, fitted once with the records.
  const fitted = isSchema(media.schema) && !('$ref' in media.schema) ? fitInputSchema(command, fields, media.schema) : media.schema;
  const { example, ...schemaOnly } = media;
  const fittedMedia = {
    ...schemaOnly,
    schema: fitted,
    ...(isSchema(example) ? { example: isSchema(fitted) && isSchema(fitted.properties) ? fittedExample(example, fitted.properties) : example } : {}),
  };
  return {
    ...rest,
    ...(kind === 'agent' && command.needsApproval ? { 'x-needs-approval': true } : {}),
    requestBody: { ...objectAt(requestBody), content: { 'application/json': fittedMedia } },
    responses: {
      // A person's call is never held: no plan answer, nor a dry run's `approval_required`.
      '200': withPlanBranch(objectAt(success), kind === 'agent' && dryRunMayBeHeld(command, fields.model.actions)),
      ...(held ? { '202': { $ref: '#/components/responses/ApprovalRequired' } } : {}),
      ...refusals,
    },
  };
}

/** The example without the keys the fitted input no longer has (fields the caller does not read, required by nothing it may send). */
function fittedExample(example: JsonSchema, properties: JsonSchema): Json {
  return Object.fromEntries(Object.entries(example).filter(([key]) => key in properties));
}

/** The 200 answer: the envelope, or for a call that may be held, that or a dry run's `approval_required`. */
function withPlanBranch(success: Json, held: boolean): Json {
  const media = objectAt(success, 'content', 'application/json');
  const anyOf = isSchema(media.schema) ? media.schema.anyOf : undefined;
  const envelope = Array.isArray(anyOf) ? anyOf[0] : media.schema;
  const schema = held ? { anyOf: [envelope, { $ref: `#/components/schemas/${OPENAPI_COMPONENT_NAMES.dryRunApprovalRequired}` }] } : envelope;
  return { ...success, content: { 'application/json': { ...media, schema } } };
}
