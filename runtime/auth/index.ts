/**
 * Sign-in for people and agents: the auth tables, `authenticate` (bearer token → Caller), the
 * `/api/auth/*` router and the `rmsgen user` commands. The server and CLI use only these exports.
 */
export { ensureAuthTables, PEOPLE_TABLE, TOKENS_TABLE, LOGIN_FAILURES_TABLE } from './tables.ts';
export type { PersonRow, TokenRow, TokenKind, LoginFailureRow } from './tables.ts';
export { authenticate, bearerToken, MISSING_TOKEN, INVALID_TOKEN } from './authenticate.ts';
export { createAuthRouter, INVALID_CREDENTIALS, LOCKED_OUT } from './router.ts';
export type { AuthRouterDeps } from './router.ts';
export { registerUserCommands } from './cli.ts';
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
