/**
 * Sign-in for people and agents: the auth tables, `authenticate` (bearer token → Caller) and the
 * `/api/auth/*` router. The server uses only these exports. The CLI takes the `rmsgen user`
 * commands from cli.ts and the tables from tables.ts, the modules themselves: this one brings the
 * router, and with it Express, which only `serve` loads.
 */
export { ensureAuthTables, PEOPLE_TABLE, TOKENS_TABLE, LOGIN_FAILURES_TABLE } from './tables.ts';
export type { PersonRow, TokenRow, TokenKind, LoginFailureRow } from './tables.ts';
export { authenticate, bearerToken, MISSING_TOKEN, INVALID_TOKEN } from './authenticate.ts';
export { createAuthRouter, INVALID_CREDENTIALS, LOCKED_OUT } from './router.ts';
export type { AuthRouterDeps } from './router.ts';
export {
  AuthInputError,
  createPerson,
  disablePerson,
  enablePerson,
  ensureAdminUser,
  findPerson,
  listPeople,
  setPassword,
  setRoles,
  checkPassword,
  MIN_PASSWORD_LENGTH,
} from './people.ts';
export type { Person, NewPerson } from './people.ts';
export { signIn, revokeToken, SESSION_TTL_MS } from './sessions.ts';
export { issueAgentToken, listAgentTokens, revokeAgentToken, DEFAULT_AGENT_TOKEN_DAYS, MAX_AGENT_TOKEN_DAYS } from './agent-tokens.ts';
export type { AgentTokenInfo, IssuedAgentToken } from './agent-tokens.ts';
export { scopeMatches, scopesAllow, isScopePattern } from './scopes.ts';
export { newToken, hashToken } from './tokens.ts';
