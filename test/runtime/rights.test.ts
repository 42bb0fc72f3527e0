/**
 * Rights (runtime/rights.ts) on the command kinds only `admin` may use (`erase`): whatever a
 * registry lists for a role, and whatever an agent token's scopes say, no one but an admin person
 * gets them. The generator never lists them for a role; this is the runtime's own guard.
 */
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../runtime/caller.ts';
import { rightsOf } from '../../runtime/rights.ts';
import type { Registry } from '../../runtime/registry.ts';
import { registry } from '../fixtures/generated/registry.ts';

/** The fixtures' registry, with `sales` listed for every command (erase included), as a hand-edited registry might. */
const generous: Registry = { ...registry, roles: { ...registry.roles, sales: Object.keys(registry.commands) } };

const person = (roles: string[]): Caller => ({ kind: 'person', userId: 'u1', username: 'someone', roles, tokenId: 's1' });
const agent = (creatorRoles: string[], scopes: string[]): Caller => ({
  kind: 'agent',
  tokenId: 't1',
  label: 'bot',
  scopes,
  creatorId: 'u1',
  creatorUsername: 'someone',
  creatorRoles,
  limits: { requestsPerMinute: null, writesPerMinute: null },
});

const erasing = (commands: ReadonlySet<string>) => [...commands].filter((id) => id.endsWith('.erase')).sort();

describe('commands only admin may use', () => {
  it('an admin person has every erase', () => {
    expect(erasing(rightsOf(registry, person(['admin'])).commands)).toEqual(['lead.erase', 'order.erase', 'party.erase']);
  });

  it.each([
    ['a role the registry lists them for', generous, person(['sales'])],
    ['a role granted the whole model', registry, person(['sales'])],
    ['an admin’s agent with *.*', registry, agent(['admin'], ['*.*'])],
    ['an admin’s agent with party.get and party.erase (stored before such scopes were refused)', registry, agent(['admin'], ['party.get', 'party.erase'])],
    ['an agent of a role the registry lists them for', generous, agent(['sales'], ['*.*'])],
  ] as const)('%s has none', (_case, given, caller) => {
    const rights = rightsOf(given, caller);
    expect(erasing(rights.commands)).toEqual([]);
    expect(rights.commands.size).toBeGreaterThan(0);
  });
});
