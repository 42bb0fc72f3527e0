/**
 * Agent token scopes. A scope is a command id (`lead.get`) or a pattern where `*` stands for one
 * whole segment (`lead.*`, `*.search`, `*.*`). Partial wildcards (`le*.get`) are not scopes.
 */

const SEGMENT = '(?:\\*|[A-Za-z_][A-Za-z0-9_]*)';
const SCOPE = new RegExp(`^${SEGMENT}\\.${SEGMENT}$`);

/** Longest scope accepted; command ids are short, anything longer is a mistake or an attack. */
export const MAX_SCOPE_LENGTH = 200;

/**
 * Whether `scope` is well formed: two dot-separated segments, each an identifier or `*`.
 *
 * @example isScopePattern('lead.*') // true
 * @example isScopePattern('lead') // false
 */
export function isScopePattern(scope: string): boolean {
  return typeof scope === 'string' && scope.length <= MAX_SCOPE_LENGTH && SCOPE.test(scope);
}

/**
 * Whether `scope` grants the command `commandId` (`<model>.<command>`). A malformed scope grants nothing.
 *
 * @example scopeMatches('*.search', 'lead.search') // true
 * @example scopeMatches('lead.*', 'party.get') // false
 */
export function scopeMatches(scope: string, commandId: string): boolean {
  if (!isScopePattern(scope)) return false;
  const dot = commandId.indexOf('.');
  if (dot < 0) return false;
  const model = commandId.slice(0, dot);
  const command = commandId.slice(dot + 1);
  const scopeDot = scope.indexOf('.');
  const scopeModel = scope.slice(0, scopeDot);
  const scopeCommand = scope.slice(scopeDot + 1);
  return (scopeModel === '*' || scopeModel === model) && (scopeCommand === '*' || scopeCommand === command);
}

/** Whether any of `scopes` grants `commandId`. */
export function scopesAllow(scopes: readonly string[], commandId: string): boolean {
  return scopes.some((scope) => scopeMatches(scope, commandId));
}
