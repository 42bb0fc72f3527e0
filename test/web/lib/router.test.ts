/** Table tests of web/src/lib/router.ts: routes and record fragments. */
import { describe, expect, it } from 'vitest';
import { matchRoute, fragmentId, paths } from '../../../web/src/lib/router.ts';

describe('routes', () => {
  it.each([
    ['/', { page: 'home' }],
    ['/records/lead', { page: 'list', model: 'lead' }],
    ['/records/lead/new', { page: 'create', model: 'lead' }],
    ['/records/lead/import', { page: 'import', model: 'lead' }],
    ['/records/lead/01ABC', { page: 'record', model: 'lead', id: '01ABC' }],
    ['/records/lead/01ABC/edit', { page: 'edit', model: 'lead', id: '01ABC' }],
    ['/approvals', { page: 'approvals' }],
    ['/agent-tokens', { page: 'tokens' }],
    ['/audit', { page: 'audit' }],
    ['/records/lead/01ABC/what', { page: 'not-found' }],
    ['/elsewhere', { page: 'not-found' }],
  ])('%s', (path, route) => expect(matchRoute(path)).toEqual(route));
});

describe('fragments', () => {
  it('links to a history entry and to a plan', () => {
    expect(paths.change('lead', 'L 1', '01ABC')).toBe('/records/lead/L%201#change-01ABC');
    expect(paths.plan('01PLAN')).toBe('/approvals#plan-01PLAN');
    expect(matchRoute(new URL(paths.change('lead', 'L1', 'X'), 'http://x').pathname)).toEqual({ page: 'record', model: 'lead', id: 'L1' });
  });

  it.each([
    ['#change-01ABC', 'change-', '01ABC'],
    ['#change-', 'change-', null],
    ['', 'change-', null],
    ['#plan-01P', 'change-', null],
    ['#plan-01P', 'plan-', '01P'],
    ['#change-%E0%A4%A', 'change-', null],
  ])('fragmentId(%j, %j) = %j', (hash, prefix, id) => expect(fragmentId(hash, prefix)).toBe(id));
});
