/** Problems as data, and the one line each is printed as. */
import { describe, expect, it } from 'vitest';
import { renderProblem, type Problem } from '../../generator/problems.ts';

const F = 'modules/crm/module.ts';

describe('renderProblem', () => {
  it.each<[string, Problem, string]>([
    ['file only', { file: F, code: 'no-default-export', message: 'has no default export' }, `${F}: has no default export`],
    ['a line', { file: F, line: 6, code: 'duplicate-key', message: 'key "a" is written twice in one object', fix: 'rename or remove one' }, `${F}:6: key "a" is written twice in one object (rename or remove one)`],
    [
      'model and field, with a fix',
      { file: F, model: 'lead', field: 'party', code: 'unknown-ref-target', message: 'ref to unknown model "prty"', fix: 'did you mean "party"?' },
      `${F}: model lead, field party: ref to unknown model "prty" (did you mean "party"?)`,
    ],
    [
      'a detail',
      { file: F, model: 'lead', field: 'title', code: 'invalid-value', message: '"required" must be true or false', detail: 'got "yes"' },
      `${F}: model lead, field title: "required" must be true or false (got "yes")`,
    ],
    [
      'a detail and a fix: the fix after a semicolon',
      { file: F, model: 'auth', code: 'reserved-model-name', message: "the name is reserved by the service's own endpoints", detail: '/api/auth/…', fix: 'choose another' },
      `${F}: model auth: the name is reserved by the service's own endpoints (/api/auth/…); choose another`,
    ],
    [
      'role before model',
      { file: F, role: 'sales', model: 'lead', code: 'unknown-grant-command', message: 'unknown command "wn"' },
      `${F}: role sales, model lead: unknown command "wn"`,
    ],
    [
      'an action of a model',
      { file: F, model: 'lead', action: 'delete', code: 'reserved-command-name', message: 'name collides with the generated command lead.delete', fix: 'rename the action' },
      `${F}: model lead, action delete: name collides with the generated command lead.delete (rename the action)`,
    ],
    ['a module key', { file: F, key: 'dependsOn', code: 'self-dependency', message: 'module crm depends on itself', fix: 'remove "crm"' }, `${F}: dependsOn: module crm depends on itself (remove "crm")`],
    ['an empty name is still named', { file: F, model: '', code: 'invalid-name', message: 'invalid model name ""' }, `${F}: model : invalid model name ""`],
    ['no file: a closing line', { file: undefined, code: 'output-out-of-date', message: 'generated/ is out of date' }, 'generated/ is out of date'],
  ])('%s', (_, problem, line) => {
    expect(renderProblem(problem)).toBe(line);
  });
});
