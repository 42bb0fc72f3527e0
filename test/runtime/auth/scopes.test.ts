import { describe, expect, it } from 'vitest';
import { isScopePattern, scopeMatches, scopesAllow } from '../../../runtime/auth/scopes.ts';

describe('isScopePattern', () => {
  it.each([
    ['lead.get', true],
    ['lead.*', true],
    ['*.search', true],
    ['*.*', true],
    ['expected_revenue.qualify', true],
    ['lead', false],
    ['*', false],
    ['lead.', false],
    ['.get', false],
    ['lead.get.more', false],
    ['le*.get', false],
    ['lead.g*', false],
    ['**.get', false],
    ['lead get', false],
    [' lead.get', false],
    ['lead.get ', false],
    ['', false],
    ['lead.' + 'x'.repeat(300), false],
  ])('%j → %s', (scope, expected) => {
    expect(isScopePattern(scope)).toBe(expected);
  });
});

describe('scopeMatches', () => {
  it.each([
    ['lead.get', 'lead.get', true],
    ['lead.get', 'lead.list', false],
    ['lead.*', 'lead.qualify', true],
    ['lead.*', 'party.get', false],
    ['*.search', 'invoice.search', true],
    ['*.search', 'invoice.searchx', false],
    ['*.*', 'party.delete', true],
    ['lead', 'lead.get', false],
    ['le*.get', 'lead.get', false],
    ['lead.get', 'leadget', false],
  ])('%s grants %s: %s', (scope, command, expected) => {
    expect(scopeMatches(scope, command)).toBe(expected);
  });

  it('scopesAllow is true when any scope grants', () => {
    expect(scopesAllow(['party.get', 'lead.*'], 'lead.delete')).toBe(true);
    expect(scopesAllow(['party.get', 'lead.*'], 'party.list')).toBe(false);
    expect(scopesAllow([], 'party.get')).toBe(false);
  });
});
