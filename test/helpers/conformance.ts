/**
 * Shared by the conformance suite, test/conformance/*.test.ts.
 *
 * What the suite is: black-box conformance tests for the interface docs/api.md describes (the specification's sections 2–8) and the
 * "Rules to get exactly right" of issues 3 (REST runtime), 4 (agents) and 5 (MCP basics), one
 * file per SPEC section or area.
 *
 * Written from SPEC and the issue texts only, as an outside client: every call goes over real
 * HTTP to a real server started by `startTestServer()`. Nothing here reads the implementation
 * or the database. Each file starts its own server (beforeAll) and signs in as admin; the
 * filters file and a few single tests start further servers where they need a known data set.
 *
 * Convention: a test that fails because the SERVICE deviates from SPEC/issue text is kept and
 * marked `it.fails(...)`, with a comment quoting the line it violates. Points where SPEC is
 * ambiguous are written tolerant (accepting each reasonable reading) and say so.
 */
import { expect } from 'vitest';
import type { TestResponse, TestServer } from './server.ts';

export type Rec = Record<string, any>;

export function expect200(r: TestResponse): any {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(Object.keys(r.body).sort()).toEqual(['denied', 'value']);
  expect(Array.isArray(r.body.denied)).toBe(true);
  return r.body.value;
}

/** SPEC 7: "For 400 the body is {"error": string} with the reason." */
export function expect400(r: TestResponse, text?: string | RegExp): void {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(Object.keys(r.body)).toEqual(['error']);
  expect(typeof r.body.error).toBe('string');
  expect(r.body.error.length).toBeGreaterThan(0);
  noLeak(r);
  if (typeof text === 'string') expect(r.body.error).toBe(text);
  else if (text) expect(r.body.error).toMatch(text);
}

/** Issue 3: "No stack trace, SQL text or internal path ever reaches a client." */
export function noLeak(r: TestResponse): void {
  const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body ?? '');
  expect(text).not.toMatch(/\n\s+at |SQLITE|select .* from|insert into|\/work\/|node_modules|\.ts:\d+/i);
}

export const TOKEN_FORM = /^[A-Z][A-Z0-9_]*_\d+$/;
export const tokenOf = (label: string) => new RegExp(`^${label}_\\d+$`);

export async function create(s: TestServer, token: string, model: string, body: Rec): Promise<Rec> {
  return expect200(await s.command(token, `${model}.create`, body));
}


/** Finds every object in a JSON tree that satisfies `pred`. */
export function findAll(node: unknown, pred: (o: Rec) => boolean, out: Rec[] = []): Rec[] {
  if (Array.isArray(node)) for (const x of node) findAll(x, pred, out);
  else if (node && typeof node === 'object') {
    if (pred(node as Rec)) out.push(node as Rec);
    for (const v of Object.values(node)) findAll(v, pred, out);
  }
  return out;
}
