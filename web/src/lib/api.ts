/**
 * The one way the app talks to the server: JSON in, JSON out, the session token as a bearer
 * token, `{"error": "..."}` turned into an `ApiError`. Any 401 on an authenticated call ends the
 * session (the app then shows sign-in with a message).
 */
import type { ApprovalRequiredAnswer, CommandEnvelope, DryRunAnswer, FilterCondition, LoginAnswer, OrderKey, SearchAnswer } from './types.ts';

const TOKEN_KEY = 'rms.session';
/** Who signed in (their username as the server compares it), kept past an expiry: a sign-in as the same person continues the page. */
const USER_KEY = 'rms.session.user';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown = undefined,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** `signed-in-again`: the person whose session had expired (the page they were on continues). */
type SessionListener = (reason: 'signed-in' | 'signed-in-again' | 'signed-out' | 'expired') => void;
const listeners = new Set<SessionListener>();

function readToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

function writeToken(token: string | null): void {
  try {
    if (token === null) sessionStorage.removeItem(TOKEN_KEY);
    else sessionStorage.setItem(TOKEN_KEY, token);
  } catch {
    // storage disabled: the session then lasts as long as the page
  }
  memoryToken = token;
}

let memoryToken: string | null = readToken();

export function sessionToken(): string | null {
  return memoryToken;
}

/** The person the session is, or was until it expired: null after signing out, or when not known. */
export function sessionUser(): string | null {
  try {
    return sessionStorage.getItem(USER_KEY);
  } catch {
    return memoryUser;
  }
}

let memoryUser: string | null = null;

function writeUser(user: string | null): void {
  memoryUser = user;
  try {
    if (user === null) sessionStorage.removeItem(USER_KEY);
    else sessionStorage.setItem(USER_KEY, user);
  } catch {
    // storage disabled: kept in memory
  }
}

/** A username as the server compares it: trimmed, lower case. */
export function sameUser(username: string): string {
  return username.trim().toLowerCase();
}

export function onSessionChange(listener: SessionListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function endSession(reason: 'signed-out' | 'expired'): void {
  if (memoryToken === null) return;
  writeToken(null);
  if (reason === 'signed-out') writeUser(null);
  for (const listener of listeners) listener(reason);
}

/** Commands that only read, and dry runs: they change nothing the app may have cached. */
const READ_PATH = /^\/api\/[^/]+\/(get|list|search|history)(\?|$)|[?&]dry_run=true|^\/api\/auth\/log(in|out)$/;
let changes = 0;

/**
 * How many changes this page has made through the API (creates, updates, actions, approvals…), so
 * that what is cached (counts of records) is known to be stale after one.
 */
export function changeCount(): number {
  return changes;
}

export async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown, options: { auth?: boolean } = {}): Promise<{ status: number; body: T }> {
  const auth = options.auth ?? true;
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = memoryToken;
  if (auth && token) headers.authorization = `Bearer ${token}`;
  let payload: string | undefined;
  if (method === 'POST') {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body ?? {});
  }
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: payload, cache: 'no-store', credentials: 'omit' });
  } catch {
    throw new ApiError(0, 'Cannot reach the server. Check your connection and try again.');
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (res.status === 401 && auth && token) {
    // Only the token we sent is over; a sign-in that happened meanwhile stays.
    if (memoryToken === token) endSession('expired');
    throw new ApiError(401, 'Your session has ended. Please sign in again.', parsed);
  }
  if (res.ok && method === 'POST' && !READ_PATH.test(path)) changes += 1;
  if (!res.ok) {
    const message = typeof (parsed as { error?: unknown } | undefined)?.error === 'string' ? (parsed as { error: string }).error : defaultMessage(res.status);
    throw new ApiError(res.status, message, parsed);
  }
  return { status: res.status, body: parsed as T };
}

function defaultMessage(status: number): string {
  if (status === 404) return 'Not found, or you may not use it.';
  if (status === 429) return 'Too many attempts. Please wait a minute and try again.';
  if (status >= 500) return 'The server had a problem. Please try again.';
  return `Request failed (${status}).`;
}

export async function get<T>(path: string): Promise<T> {
  return (await request<T>('GET', path)).body;
}

export async function post<T>(path: string, body?: unknown): Promise<T> {
  return (await request<T>('POST', path, body)).body;
}

export async function signIn(username: string, password: string): Promise<void> {
  const { body } = await request<LoginAnswer>('POST', '/api/auth/login', { username, password }, { auth: false });
  const before = sessionUser();
  writeToken(body.token);
  writeUser(sameUser(username));
  for (const listener of listeners) listener(before === sameUser(username) ? 'signed-in-again' : 'signed-in');
}

export async function signOut(): Promise<void> {
  try {
    if (memoryToken) await request('POST', '/api/auth/logout', {});
  } catch {
    // the token is dropped either way
  } finally {
    endSession('signed-out');
  }
}

/** A command's answer: the envelope, or the plan an approval-needing command became. */
export type CommandResult<T> = { readonly kind: 'done'; readonly value: T; readonly denied: readonly string[] } | { readonly kind: 'proposed'; readonly planId: string };

export async function command<T>(model: string, name: string, input: Record<string, unknown>): Promise<CommandResult<T>> {
  const { status, body } = await request<CommandEnvelope<T> | ApprovalRequiredAnswer>('POST', `/api/${encodeURIComponent(model)}/${encodeURIComponent(name)}`, input);
  if (status === 202) return { kind: 'proposed', planId: String((body as ApprovalRequiredAnswer).plan_id ?? '') };
  const envelope = body as CommandEnvelope<T>;
  return { kind: 'done', value: envelope.value, denied: envelope.denied ?? [] };
}

/**
 * What a command would do, with nothing changed and nothing audited (`?dry_run=true`): the
 * record it would answer, or the command's error thrown as an `ApiError`.
 */
export async function dryRun<T>(model: string, name: string, input: Record<string, unknown>): Promise<CommandResult<T>> {
  const { body } = await request<DryRunAnswer>('POST', `/api/${encodeURIComponent(model)}/${encodeURIComponent(name)}?dry_run=true`, input);
  if ('approval_required' in body) return { kind: 'proposed', planId: '' };
  return { kind: 'done', value: body.value as T, denied: body.denied ?? [] };
}

/** A command that must run (not be proposed): its value. */
export async function run<T>(model: string, name: string, input: Record<string, unknown>): Promise<T> {
  const result = await command<T>(model, name, input);
  if (result.kind === 'proposed') throw new ApiError(202, 'This change was sent for approval.');
  return result.value;
}

export interface SearchInput {
  filter?: readonly FilterCondition[];
  order?: readonly OrderKey[];
  limit?: number;
  offset?: number;
  /** Line lists to answer with each record (`list` and `search` leave them out unless asked). */
  include?: readonly string[];
}

export function search(model: string, input: SearchInput): Promise<SearchAnswer> {
  const body: Record<string, unknown> = {};
  if (input.filter && input.filter.length > 0) body.filter = input.filter;
  if (input.order && input.order.length > 0) body.order = input.order;
  if (input.limit !== undefined) body.limit = input.limit;
  if (input.offset) body.offset = input.offset;
  if (input.include && input.include.length > 0) body.include = input.include;
  return run(model, 'search', body);
}

/** `lead.close_date must be …` → `Close date must be …`: the field's label instead of its path. */
export function fieldMessage(message: string, model: string, field: { name: string; label: string }): string {
  const path = `${model}.${field.name}`;
  return message.startsWith(path) ? `${field.label}${message.slice(path.length)}` : message;
}

/** A record that is not there: 404, or the 400 `<model> <id> not found` of get/update/delete. */
export function isMissingRecord(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 404 || (error.status === 400 && / not found$/.test(error.message)));
}

/** The field an error text is about, when it starts with `<model>.<field>` (SPEC 7). */
export function errorField(message: string, model: string, fields: readonly string[]): string | undefined {
  const prefix = `${model}.`;
  const at = message.startsWith(prefix) ? 0 : message.indexOf(` ${prefix}`) + 1;
  if (at < 0 || !message.startsWith(prefix, at)) return undefined;
  const rest = message.slice(at + prefix.length);
  const name = /^[A-Za-z0-9_]+/.exec(rest)?.[0];
  return name !== undefined && fields.includes(name) ? name : undefined;
}
