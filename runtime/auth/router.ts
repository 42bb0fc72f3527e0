/**
 * The `/api/auth/*` endpoints. Mounted at the root of the app by the server, after its JSON body
 * parser and before the command routes; every failure is thrown as HttpError for the one error handler.
 */
import express, { type Request, type Response, type Router } from 'express';
import type { Knex } from 'knex';
import type { AgentTokensAnswer, IssuedAgentToken, LoginAnswer } from '../api-shapes.ts';
import { auditActor, writeAudit, writeAuditEntries, type AuditEntry } from '../audit/store.ts';
import type { PersonCaller } from '../caller.ts';
import { rejectPendingPlansOf } from '../plans/store.ts';
import { NOT_AN_AGENTS_KINDS } from '../command-kinds.ts';
import { HttpError, badRequest, notFound } from '../errors.ts';
import { noteEvent } from '../http/observe.ts';
import { sendJson } from '../http/send.ts';
import { BULK_LIMITS, agentMaxAffected, textProblem } from '../kinds.ts';
import type { Registry } from '../registry.ts';
import { allowedCommands } from '../rights.ts';
import {
  DEFAULT_AGENT_TOKEN_DAYS,
  MAX_AGENT_TOKEN_DAYS,
  issueAgentToken,
  listAgentTokens,
  revokeAgentToken,
  scopesGrantingNothing,
  setAgentTokenMaxAffected,
} from './agent-tokens.ts';
import type { Callers } from '../http/callers.ts';
import { ADMIN_ROLE } from '../rights.ts';
import { bearerToken, SIGN_IN_PATH } from './authenticate.ts';
import { limitsInfo, type OwnLimits, type RateLimits } from './rate-limits.ts';
import { isScopePattern } from './scopes.ts';
import { MAX_USERNAME_LENGTH } from './people.ts';
import { revokeToken, signIn } from './sessions.ts';
import { tokenKindOf } from './tokens.ts';

export const INVALID_CREDENTIALS = 'invalid username or password';
export const LOCKED_OUT = 'too many failed sign-ins; try again in a minute';
export const ADDRESS_THROTTLED = 'too many failed sign-ins from this address; try again in a minute';

export const MAX_SCOPES = 100;
/** C0 and C1 controls, and Unicode's bidirectional marks, embeddings, overrides and isolates. */
const LABEL_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
export const MAX_LABEL_LENGTH = 200;
/** bcrypt reads 72 bytes: a longer password cannot be right; refused before any work. */
const MAX_CREDENTIAL_LENGTH = 1024;
/** Token ids are stored in columns of 26 characters (see tables.ts). */
const TOKEN_ID_LENGTH = 26;

export interface AuthRouterDeps {
  readonly db: Knex;
  readonly registry: Registry;
  readonly callers: Callers;
}

export function createAuthRouter(deps: AuthRouterDeps): Router {
  const { db, registry, callers } = deps;
  const serverLimits = callers.limiter.defaults;
  const router = express.Router();

  /** The signed-in person; agents get the 404 of an endpoint that does not exist (and it counts as one of their requests). */
  async function requirePerson(req: Request, res: Response): Promise<PersonCaller> {
    const caller = await callers.of(req.get('authorization'), res, `${req.method} ${req.path}`);
    if (caller.kind !== 'person') throw notFound();
    return caller;
  }

  router.post(SIGN_IN_PATH, async function login(req: Request, res: Response) {
    // Issue 4: signing in is 404 to an agent token, as creating tokens and approving are.
    if (tokenKindOf(bearerToken(req.get('authorization')) ?? '') === 'agent') throw notFound();
    const body = readBody(req.body, ['username', 'password']);
    // No account has a longer name: refused before any hashing (a password check costs bcrypt's time).
    const username = requireString(body, 'username', MAX_USERNAME_LENGTH);
    const password = requireString(body, 'password', MAX_CREDENTIAL_LENGTH);
    const result = await signIn(db, username, password, { address: clientAddress(req), now: callers.clock.now() });
    noteEvent(res, { signIn: result.outcome });
    if (result.outcome === 'locked' || result.outcome === 'throttled') {
      res.set('Retry-After', String(result.retryAfterSeconds));
      throw new HttpError(429, result.outcome === 'locked' ? LOCKED_OUT : ADDRESS_THROTTLED);
    }
    if (result.outcome === 'invalid') throw new HttpError(401, INVALID_CREDENTIALS);
    sendJson(res, 200, { token: result.token, expires: result.expires } satisfies LoginAnswer);
  });

  router.post('/api/auth/logout', async function logout(req: Request, res: Response) {
    // Every /api/auth/* endpoint is a person's: an agent token cannot revoke itself here either (a person revokes it).
    const person = await requirePerson(req, res);
    readBody(req.body, []);
    await revokeToken(db, person.tokenId);
    sendJson(res, 200, { ok: true });
  });

  router.post('/api/auth/agent-token', async function createAgentToken(req: Request, res: Response) {
    const person = await requirePerson(req, res);
    const body = readBody(req.body, ['scopes', 'label', 'expires_in_days', 'limits', 'max_affected']);
    const scopes = readScopes(body);
    const label = requireString(body, 'label', MAX_LABEL_LENGTH).trim();
    if (label === '') throw badRequest('label must not be empty');
    // A label is shown beside its maker's name (plans, history, the audit trail, the web app): a
    // right-to-left override or a line break in it could make it read as something else.
    if (LABEL_CONTROLS.test(label)) throw badRequest('label must not contain control characters or bidirectional overrides');
    const expiresInDays = readExpiresInDays(body);
    const limits = readLimits(body, person, serverLimits);
    const maxAffected = readMaxAffected(body, person);
    const allowed = allowedCommands(registry, person);
    const [first] = scopesGrantingNothing(scopes, allowed);
    if (first !== undefined) throw badRequest(`scope ${first} matches no command you may use`);
    // `erase` and its like are a person's acts, and an agent reverts one change at a time, not a batch
    // (runtime/command-kinds.ts, NOT_AN_AGENTS_KINDS): a scope naming only them would grant an agent nothing.
    const [noAgents] = scopesGrantingNothing(scopes, [...allowed].filter((id) => !NOT_AN_AGENTS_KINDS.has(registry.commands[id]!.kind)));
    if (noAgents !== undefined) throw badRequest(`scope ${noAgents} matches only commands no agent may use`);
    const issued = await db.transaction(async (trx) => {
      const made = await issueAgentToken(trx, person, { scopes, label, expiresInDays, limits, maxAffected }, serverLimits, callers.clock.now());
      // What was asked for, never the token itself.
      await writeAudit(trx, tokenAudit(person, 'create', made.id, { scopes, label, expires_in_days: expiresInDays, limits: body.limits ?? null, max_affected: maxAffected }));
      return made;
    });
    sendJson(res, 200, issued satisfies IssuedAgentToken);
  });

  router.get('/api/auth/agent-tokens', async function agentTokens(req: Request, res: Response) {
    const person = await requirePerson(req, res);
    const tokens = await listAgentTokens(db, person, serverLimits, callers.clock.now());
    sendJson(res, 200, { tokens, server_limits: limitsInfo(serverLimits) } satisfies AgentTokensAnswer);
  });

  router.post('/api/auth/agent-token/update', async function update(req: Request, res: Response) {
    const person = await requirePerson(req, res);
    const body = readBody(req.body, ['id', 'max_affected']);
    const id = requireString(body, 'id', TOKEN_ID_LENGTH);
    if (!('max_affected' in body)) throw badRequest('max_affected is required (null for the default)');
    const maxAffected = readMaxAffected(body, person);
    // As with revoking: an admin may change anyone's agent token, anyone else their own.
    const owner = person.roles.includes(ADMIN_ROLE) ? undefined : person.userId;
    await db.transaction(async (trx) => {
      if (!(await setAgentTokenMaxAffected(trx, owner, id, maxAffected))) throw notFound();
      await writeAudit(trx, tokenAudit(person, 'update', id, { id, max_affected: maxAffected }));
    });
    sendJson(res, 200, { id, max_affected: agentMaxAffected(maxAffected) });
  });

  router.post('/api/auth/agent-token/revoke', async function revoke(req: Request, res: Response) {
    const person = await requirePerson(req, res);
    const body = readBody(req.body, ['id']);
    const id = requireString(body, 'id', TOKEN_ID_LENGTH);
    // An admin may revoke any person's agent token (a leaked one, say); anyone else their own.
    const owner = person.roles.includes(ADMIN_ROLE) ? undefined : person.userId;
    await db.transaction(async (trx) => {
      if (!(await revokeAgentToken(trx, owner, id))) throw notFound();
      // What the token proposed and no one has decided goes with it: a leaked token's queued deletes
      // and bulk changes must not wait for someone to approve them.
      const rejected = await rejectPendingPlansOf(trx, id, person.userId, PLAN_OF_REVOKED_TOKEN);
      await writeAuditEntries(trx, [
        tokenAudit(person, 'revoke', id, { id }),
        ...rejected.map((plan) => ({ ...auditActor(person), command: plan.command, access: 'write', recordId: plan.record_id, outcome: 'rejected', planId: plan.id, error: PLAN_OF_REVOKED_TOKEN }) as const),
      ]);
    });
    sendJson(res, 200, { ok: true });
  });

  return router;
}

/** Why a plan was rejected when its agent token was revoked (its `error`, and its audit row's). */
export const PLAN_OF_REVOKED_TOKEN = 'its agent token was revoked';

/** The audit row of a change to an agent token: `agent_token.<what>`, the token's id as its record. */
function tokenAudit(person: PersonCaller, what: 'create' | 'update' | 'revoke', tokenId: string, input: Record<string, unknown>): AuditEntry {
  return { ...auditActor(person), command: `agent_token.${what}`, access: 'write', recordId: tokenId, outcome: 'executed', input };
}

/** The body as an object with only `allowed` keys; an empty body counts as `{}`. */
function readBody(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (body === undefined) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('request body must be a JSON object');
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) throw badRequest(`unknown key ${key}`);
  }
  return body as Record<string, unknown>;
}

function requireString(body: Record<string, unknown>, key: string, maxLength: number): string {
  const value = body[key];
  if (value === undefined || value === null) throw badRequest(`${key} is required`);
  if (typeof value !== 'string') throw badRequest(`${key} must be a string`);
  if (value.length === 0) throw badRequest(`${key} must not be empty`);
  const problem = textProblem(value, maxLength);
  if (problem !== undefined) throw badRequest(`${key} ${problem}`);
  return value;
}

function readScopes(body: Record<string, unknown>): string[] {
  const value = body.scopes;
  if (value === undefined || value === null) throw badRequest('scopes is required');
  if (!Array.isArray(value)) throw badRequest('scopes must be an array of strings');
  if (value.length === 0) throw badRequest('scopes must not be empty');
  if (value.length > MAX_SCOPES) throw badRequest(`scopes must have at most ${MAX_SCOPES} entries`);
  for (const scope of value) {
    if (typeof scope !== 'string') throw badRequest('scopes must be an array of strings');
    if (!isScopePattern(scope)) {
      throw badRequest(`malformed scope ${JSON.stringify(scope.length > 60 ? `${scope.slice(0, 60)}…` : scope)}: use <model>.<command>, with * for a whole segment (lead.*, *.search)`);
    }
  }
  return [...new Set(value as string[])];
}

const LIMIT_KEYS = ['requests_per_minute', 'writes_per_minute'] as const;
/** Far above anything a minute can hold; a bigger number is a mistake. */
const MAX_LIMIT = 1_000_000;

/**
 * `limits`: `{"requests_per_minute"?: n, "writes_per_minute"?: n}`, whole numbers, 0 for unlimited.
 * A person who is not an admin may not give a token more than the server allows.
 */
function readLimits(body: Record<string, unknown>, person: PersonCaller, server: RateLimits): OwnLimits {
  const value = body.limits;
  if (value === undefined || value === null) return { requestsPerMinute: null, writesPerMinute: null };
  if (typeof value !== 'object' || Array.isArray(value)) throw badRequest('limits must be an object with requests_per_minute and/or writes_per_minute');
  const given = value as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!(LIMIT_KEYS as readonly string[]).includes(key)) throw badRequest(`unknown key limits.${key} (use requests_per_minute, writes_per_minute)`);
  }
  const admin = person.roles.includes(ADMIN_ROLE);
  const read = (key: (typeof LIMIT_KEYS)[number], serverLimit: number): number | null => {
    const limit = given[key];
    if (limit === undefined || limit === null) return null;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0 || limit > MAX_LIMIT) {
      throw badRequest(`limits.${key} must be a whole number from 0 (unlimited) to ${MAX_LIMIT}`);
    }
    if (!admin && serverLimit > 0 && (limit === 0 || limit > serverLimit)) {
      throw badRequest(`limits.${key} may be at most ${serverLimit}, the server's limit (only an admin may give a token more)`);
    }
    return limit;
  };
  return { requestsPerMinute: read('requests_per_minute', server.requestsPerMinute), writesPerMinute: read('writes_per_minute', server.writesPerMinute) };
}

/**
 * `max_affected`: the most records one bulk command of the token may change or create, a whole
 * number from 1 to the bulk commands' own limit; null or absent: the default. As with rate limits,
 * only an admin may give a token more than the default.
 */
function readMaxAffected(body: Record<string, unknown>, person: PersonCaller): number | null {
  const value = body.max_affected;
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > BULK_LIMITS.changeMany) {
    throw badRequest(`max_affected must be an integer from 1 to ${BULK_LIMITS.changeMany}`);
  }
  if (value > BULK_LIMITS.agentMaxAffected && !person.roles.includes(ADMIN_ROLE)) {
    throw badRequest(`max_affected may be at most ${BULK_LIMITS.agentMaxAffected} (only an admin may give a token more)`);
  }
  return value;
}

/** The client's address: the socket's, or with `--trust-proxy` the one the trusted proxies forwarded. */
function clientAddress(req: Request): string {
  return (req.ip ?? req.socket.remoteAddress ?? 'unknown').slice(0, 64);
}

function readExpiresInDays(body: Record<string, unknown>): number {
  const value = body.expires_in_days;
  if (value === undefined || value === null) return DEFAULT_AGENT_TOKEN_DAYS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_AGENT_TOKEN_DAYS) {
    throw badRequest(`expires_in_days must be an integer from 1 to ${MAX_AGENT_TOKEN_DAYS}`);
  }
  return value;
}
