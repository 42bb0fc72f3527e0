/**
 * Every validation error, each with the definition that causes it, the exact line(s) it gives
 * and the same problems as data (code and location): one table of refused definitions, then what
 * valid definitions become. Loaded and validated in-process (fast); the CLI tests
 * (test/cli/build-check.test.ts) check the same lines come out of the real `rmsgen check` with
 * exit status 1.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { RmsgenError } from '../../generator/errors.ts';
import { loadProject } from '../../generator/pipeline.ts';
import type { Problem } from '../../generator/problems.ts';
import { moduleTree, oneModule, removeModuleTrees } from '../helpers/module-trees.ts';

afterAll(removeModuleTrees);

/** The error refusing the definitions in `dir`. */
async function refusal(dir: string): Promise<RmsgenError> {
  try {
    await loadProject(`${dir}/modules`);
  } catch (error) {
    if (error instanceof RmsgenError) return error;
    throw error;
  }
  throw new Error('expected the definitions to be refused');
}

/** Each problem's code and location, without its wording. */
function located(error: RmsgenError): Omit<Problem, 'message' | 'detail' | 'fix' | 'column' | 'excerpt'>[] {
  return error.details.map(({ message, detail, fix, column, excerpt, ...rest }) => rest);
}

const F = 'modules/crm/module.ts';
const endpoint = (name: string, route: string) => `${F}: model ${name}: the name is reserved by the service's own endpoints (${route}); choose another`;
const hint = 'use lower snake_case: a lowercase letter, then lowercase letters, digits and single underscores';

interface Refused {
  readonly name: string;
  /** One module's source (written as modules/crm/module.ts), or module sources by module name. */
  readonly modules: string | Record<string, string>;
  /** The lines `rmsgen check` prints, in order. */
  readonly problems: readonly string[];
  /** Each problem's code and location, in the same order. */
  readonly located?: readonly Omit<Problem, 'message' | 'detail' | 'fix' | 'column' | 'excerpt'>[];
  /** Each problem as data, whole. */
  readonly details?: readonly Problem[];
  /** The first problem as data, in part. */
  readonly first?: Partial<Problem>;
  /** Each problem's column, where the compiler pointed. */
  readonly columns?: readonly (number | undefined)[];
}

const REFUSED: readonly Refused[] = [
  {
    name: 'unknown kind, listing the valid kinds',
    modules: `export default { models: { party: { fields: { name: { kind: 'txt' }, age: { kind: 'integer' } } } } };`,
    problems: [
      `${F}: model party, field name: unknown kind "txt" (did you mean "text"? valid kinds: text, longtext, number, money, date, bool, select, ref, decimal, datetime, email, url, phone, multiselect, file)`,
      `${F}: model party, field age: unknown kind "integer" (valid kinds: text, longtext, number, money, date, bool, select, ref, decimal, datetime, email, url, phone, multiselect, file)`,
    ],
    located: [
      { file: F, model: 'party', field: 'name', code: 'unknown-kind' },
      { file: F, model: 'party', field: 'age', code: 'unknown-kind' },
    ],
    first: { message: 'unknown kind "txt"', fix: 'did you mean "text"? valid kinds: text, longtext, number, money, date, bool, select, ref, decimal, datetime, email, url, phone, multiselect, file' },
  },
  {
    name: 'ref to a missing model, with a did-you-mean',
    modules: `export default { models: {
      party: { fields: { name: { kind: 'text' } } },
      lead: { fields: { party: { kind: 'ref', to: 'prty' }, owner: { kind: 'ref', to: 'employee' } } },
    } };`,
    problems: [
      `${F}: model lead, field party: ref to unknown model "prty" (did you mean "party"?)`,
      `${F}: model lead, field owner: ref to unknown model "employee" (known models: party, lead)`,
    ],
    details: [
      { file: F, model: 'lead', field: 'party', code: 'unknown-ref-target', message: 'ref to unknown model "prty"', fix: 'did you mean "party"?' },
      { file: F, model: 'lead', field: 'owner', code: 'unknown-ref-target', message: 'ref to unknown model "employee"', fix: 'known models: party, lead' },
    ],
  },
  {
    name: 'model names duplicated across modules',
    modules: {
      crm: `export default { models: { party: { fields: { name: { kind: 'text' } } } } };`,
      sales: `export default { models: { party: { fields: { name: { kind: 'text' } } } } };`,
    },
    problems: [
      'modules/sales/module.ts: model party: name already used by a model of module crm (modules/crm/module.ts); model names are shared by all modules, rename one',
    ],
    details: [
      {
        file: 'modules/sales/module.ts',
        model: 'party',
        code: 'duplicate-model-name',
        message: 'name already used by a model of module crm',
        detail: 'modules/crm/module.ts',
        fix: 'model names are shared by all modules, rename one',
      },
    ],
  },
  {
    name: 'an action named like a generated command, or written twice',
    modules: `export default { models: { lead: {
      fields: { stage: { kind: 'select', options: ['new', 'done'], governed: true } },
      actions: {
        delete: { description: 'Drop it', from: 'new', to: 'done' },
        finish: { description: 'Finish', from: 'new', to: 'done' },
        finish: { description: 'Finish again', from: 'new', to: 'done' },
      },
    } } };`,
    problems: [
      `${F}:6: key "finish" is written twice in one object (JavaScript silently keeps only the last one; rename or remove one)`,
      `${F}: model lead, action delete: name collides with the generated command lead.delete (rename the action)`,
    ],
    located: [
      { file: F, line: 6, code: 'duplicate-key' },
      { file: F, model: 'lead', action: 'delete', code: 'reserved-command-name' },
    ],
  },
  {
    name: "an action named like another action's bulk command",
    modules: `export default { models: { lead: {
      fields: { stage: { kind: 'select', options: ['new', 'done'], governed: true } },
      actions: {
        finish: { description: 'Finish', from: 'new', to: 'done' },
        finish_many: { description: 'Finish many', from: 'new', to: 'done' },
      },
    } } };`,
    problems: [`${F}: model lead, action finish_many: name collides with the bulk command lead.finish_many of action finish (rename the action)`],
    located: [{ file: F, model: 'lead', action: 'finish_many', code: 'reserved-command-name' }],
  },
  {
    name: "model names reserved by the service's endpoints or its system tables",
    modules: `export default { models: {
      auth: { fields: {} },
      approve: { fields: {} },
      reject: { fields: {} },
      plans: { fields: {} },
      commands: { fields: {} },
      meta: { fields: {} },
      audit: { fields: {} },
      rms_log: { fields: {} },
      plan: { fields: {} },
      audit_entry: { fields: {} },
      rms: { fields: {} },
      mcp: { fields: {} },
    } };`,
    problems: [
      endpoint('auth', '/api/auth/…'),
      endpoint('approve', '/api/approve/…'),
      endpoint('reject', '/api/reject/…'),
      endpoint('plans', '/api/plans'),
      endpoint('commands', '/api/commands'),
      endpoint('meta', '/api/meta'),
      endpoint('audit', '/api/audit'),
      `${F}: model rms_log: names starting with rms_ are reserved for the runtime's system tables (the model's table takes its name); choose another`,
    ],
    located: ['auth', 'approve', 'reject', 'plans', 'commands', 'meta', 'audit', 'rms_log'].map((model) => ({ file: F, model, code: 'reserved-model-name' })),
    first: { message: "the name is reserved by the service's own endpoints", detail: '/api/auth/…', fix: 'choose another' },
  },
  {
    name: "a model named like SQLite's own tables",
    modules: `export default { models: { sqlite_master: { fields: {} }, sqlite_stat1: { fields: {} }, sqlite: { fields: {} } } };`,
    problems: ['sqlite_master', 'sqlite_stat1'].map((model) => `${F}: model ${model}: names starting with sqlite_ are SQLite's own tables (the model's table takes its name); choose another`),
    located: ['sqlite_master', 'sqlite_stat1'].map((model) => ({ file: F, model, code: 'reserved-model-name' })),
  },
  {
    name: 'a field, a line field or an input named constructor (every JavaScript object has one)',
    modules: `export default { models: { thing: {
      fields: { constructor: { kind: 'text' }, status: { kind: 'select', options: ['aa', 'bb'], governed: true } },
      lines: { parts: { fields: { constructor: { kind: 'text' } } } },
      actions: { go: { from: 'aa', to: 'bb', input: { constructor: { kind: 'text' } } } },
    } } };`,
    problems: [
      `${F}: model thing, field constructor: "constructor" is a name every JavaScript object has (Object.prototype.constructor): a record without the field would seem to hold it (rename the field)`,
      `${F}:3: model thing, lines parts, field constructor: "constructor" is a name every JavaScript object has (Object.prototype.constructor): a record without the field would seem to hold it (rename the field)`,
      `${F}:4: model thing, action go, input constructor: "constructor" is a name every JavaScript object has (Object.prototype.constructor): a record without the field would seem to hold it (rename the input)`,
    ],
    located: [
      { file: F, model: 'thing', field: 'constructor', code: 'reserved-field-name' },
      { file: F, line: 3, model: 'thing', lines: 'parts', field: 'constructor', code: 'reserved-field-name' },
      { file: F, line: 4, model: 'thing', action: 'go', input: 'constructor', code: 'reserved-field-name' },
    ],
  },
  {
    name: 'a key __proto__, which JavaScript takes as the prototype, not a name',
    modules: `export default { models: { thing: { fields: { __proto__: { kind: 'text' }, name: { kind: 'text' } } } } };`,
    problems: [`${F}: model thing: a key "__proto__" in fields sets a JavaScript object's prototype: what it names would be lost (rename it)`],
    located: [{ file: F, model: 'thing', code: 'reserved-field-name' }],
  },
  {
    name: 'required refs that go round: a model requiring itself, two requiring each other (optional ones may)',
    modules: `export default { models: {
      node: { fields: { partner: { kind: 'ref', to: 'peer', required: true } } },
      peer: { fields: { back: { kind: 'ref', to: 'node', required: true } } },
      self: { fields: { parent: { kind: 'ref', to: 'self', required: true } } },
      tree: { fields: { parent: { kind: 'ref', to: 'tree' }, node: { kind: 'ref', to: 'node', required: true } } },
    } };`,
    problems: [
      `${F}: model node: required refs go round (node.partner → peer, peer.back → node): no record of any of them can be created first (make one of these refs optional)`,
      `${F}: model self: required refs go round (self.parent → self): no record of it can be created first (make one of these refs optional)`,
    ],
    located: [
      { file: F, model: 'node', code: 'required-ref-cycle' },
      { file: F, model: 'self', code: 'required-ref-cycle' },
    ],
  },
  {
    name: 'a field named id',
    modules: `export default { models: { party: { fields: { id: { kind: 'text' } } } } };`,
    problems: [`${F}: model party, field id: "id" is reserved for the record id every model has (remove the field, or rename it)`],
    located: [{ file: F, model: 'party', field: 'id', code: 'reserved-field-name' }],
  },
  {
    name: 'governed on a field that is not a select',
    modules: `export default { models: { lead: { fields: { stage: { kind: 'text', governed: true } } } } };`,
    problems: [
      `${F}: model lead, field stage: governed is only for select fields (make it kind: 'select' with options, or remove governed)`,
    ],
    located: [{ file: F, model: 'lead', field: 'stage', code: 'key-not-for-kind' }],
  },
  {
    name: 'an action moving a field that is not governed',
    modules: `export default { models: { lead: {
      fields: {
        stage: { kind: 'select', options: ['new', 'done'], governed: true },
        kind: { kind: 'select', options: ['a', 'b'] },
        title: { kind: 'text' },
      },
      actions: {
        flip: { description: 'Flip', field: 'kind', from: 'a', to: 'b' },
        rename: { description: 'Rename', field: 'title', from: 'a', to: 'b' },
        close: { description: 'Close', field: 'stag', from: 'new', to: 'done' },
      },
    } } };`,
    problems: [
      `${F}: model lead, action flip: moves field kind, which is not governed (add governed: true to field kind)`,
      `${F}: model lead, action rename: moves field title, which is a text field; actions move governed select fields (name a governed select field)`,
      `${F}: model lead, action close: moves unknown field "stag" (did you mean "stage"?)`,
    ],
    located: [
      { file: F, model: 'lead', action: 'flip', code: 'moved-field-not-governed' },
      { file: F, model: 'lead', action: 'rename', code: 'moved-field-not-governed' },
      { file: F, model: 'lead', action: 'close', code: 'unknown-moved-field' },
    ],
  },
  {
    name: 'a cyclic module dependency, showing the cycle',
    modules: {
      alpha: `export default { dependsOn: ['gamma'], models: {} };`,
      beta: `export default { dependsOn: ['alpha'], models: {} };`,
      gamma: `export default { dependsOn: ['beta'], models: {} };`,
      solo: `export default { dependsOn: ['solo'], models: {} };`,
    },
    problems: [
      'modules/alpha/module.ts: dependsOn: cyclic module dependency alpha → gamma → beta → alpha (remove one of these dependsOn entries)',
      'modules/solo/module.ts: dependsOn: module solo depends on itself (remove "solo")',
    ],
    located: [
      { file: 'modules/alpha/module.ts', key: 'dependsOn', code: 'dependency-cycle' },
      { file: 'modules/solo/module.ts', key: 'dependsOn', code: 'self-dependency' },
    ],
  },
  {
    name: 'dependsOn an unknown module',
    modules: {
      crm: `export default { models: {} };`,
      accounting: `export default { dependsOn: ['crn', 'payroll'], models: {} };`,
    },
    problems: [
      'modules/accounting/module.ts: dependsOn: unknown module "crn" (did you mean "crm"?)',
      'modules/accounting/module.ts: dependsOn: unknown module "payroll" (known modules: crm)',
    ],
    located: [
      { file: 'modules/accounting/module.ts', key: 'dependsOn', code: 'unknown-dependency' },
      { file: 'modules/accounting/module.ts', key: 'dependsOn', code: 'unknown-dependency' },
    ],
  },
  {
    name: 'a ref to a model of a module not depended on',
    modules: {
      crm: `export default { models: { party: { fields: { name: { kind: 'text' } } } } };`,
      accounting: `export default { models: { invoice: { fields: { party: { kind: 'ref', to: 'party' } } } } };`,
    },
    problems: [
      "modules/accounting/module.ts: model invoice, field party: ref to model \"party\" of module crm, which module accounting does not depend on (add dependsOn: ['crm'] to modules/accounting/module.ts)",
    ],
    located: [{ file: 'modules/accounting/module.ts', model: 'invoice', field: 'party', code: 'ref-outside-dependencies' }],
  },
  {
    name: 'required action input that is not a field (or is governed)',
    modules: `export default { models: { lead: {
      fields: { stage: { kind: 'select', options: ['new', 'lost'], governed: true }, lost_reason: { kind: 'text' } },
      actions: { lose: { description: 'Lose', from: 'new', to: 'lost', required: ['reason', 'stage'] } },
    } } };`,
    problems: [
      `${F}: model lead, action lose: required input "reason" is not a field of lead (known fields: stage, lost_reason)`,
      `${F}: model lead, action lose: required input "stage" is a governed field, which only actions change (remove it from required)`,
    ],
    located: [
      { file: F, model: 'lead', action: 'lose', code: 'unknown-action-input' },
      { file: F, model: 'lead', action: 'lose', code: 'governed-action-input' },
    ],
  },
  {
    name: 'action from/to states that are not options of the field',
    modules: `export default { models: { lead: {
      fields: { stage: { kind: 'select', options: ['new', 'qualified', 'lost'], governed: true } },
      actions: { qualify: { description: 'Qualify', from: ['nw', 'new'], to: 'qualifed' } },
    } } };`,
    problems: [
      `${F}: model lead, action qualify: from state "nw" is not an option of field stage (did you mean "new"? options: new, qualified, lost)`,
      `${F}: model lead, action qualify: to state "qualifed" is not an option of field stage (did you mean "qualified"? options: new, qualified, lost)`,
    ],
    located: [
      { file: F, model: 'lead', action: 'qualify', code: 'unknown-state' },
      { file: F, model: 'lead', action: 'qualify', code: 'unknown-state' },
    ],
  },
  {
    name: 'role grants naming unknown models or commands, and grants to admin',
    modules: {
      crm: `export default {
        models: { lead: { fields: { stage: { kind: 'select', options: ['new', 'won'], governed: true } }, actions: { win: { description: 'Win', from: 'new', to: 'won' } } } },
        roles: { sales: { leed: '*', lead: ['get', 'wn', 'approve'] }, admin: { lead: '*' } },
      };`,
      accounting: `export default { models: {}, roles: { accountant: { lead: ['get'] } } };`,
    },
    problems: [
      "modules/accounting/module.ts: role accountant: grant on model \"lead\" of module crm, which module accounting does not depend on (add dependsOn: ['crm'] to modules/accounting/module.ts, or grant it in modules/crm/module.ts)",
      'modules/crm/module.ts: role sales: grant on unknown model "leed" (did you mean "lead"?)',
      'modules/crm/module.ts: role sales, model lead: unknown command "wn" (did you mean "win"? commands of lead: get, list, search, create, update, delete, win, history, revert, create_many, update_many, delete_many, revert_batch, win_many)',
      'modules/crm/module.ts: role sales, model lead: unknown command "approve" (commands of lead: get, list, search, create, update, delete, win, history, revert, create_many, update_many, delete_many, revert_batch, win_many)',
      'modules/crm/module.ts: role admin: admin is built in and may use every command (remove this grant)',
    ],
    located: [
      { file: 'modules/accounting/module.ts', role: 'accountant', code: 'grant-outside-module' },
      { file: 'modules/crm/module.ts', role: 'sales', code: 'unknown-grant-model' },
      { file: 'modules/crm/module.ts', role: 'sales', model: 'lead', code: 'unknown-grant-command' },
      { file: 'modules/crm/module.ts', role: 'sales', model: 'lead', code: 'unknown-grant-command' },
      { file: 'modules/crm/module.ts', role: 'admin', code: 'admin-grant' },
    ],
  },
  {
    name: 'a role granted erase, which only admin may use (and which a model without personal data does not have)',
    modules: `export default {
      models: { party: { fields: { name: { kind: 'text', personal: true } } }, tag: { fields: { label: { kind: 'text' } } } },
      roles: { clerk: { party: ['get', 'erase'], tag: ['erase'] } },
    };`,
    problems: [
      `${F}: role clerk, model party: erase is admin's only: no other role may be granted it (remove "erase")`,
      `${F}: role clerk, model tag: unknown command "erase" (commands of tag: get, list, search, create, update, delete, history, revert, create_many, update_many, delete_many, revert_batch)`,
    ],
    located: [
      { file: F, role: 'clerk', model: 'party', code: 'admin-only-grant' },
      { file: F, role: 'clerk', model: 'tag', code: 'unknown-grant-command' },
    ],
  },
  {
    name: 'read naming unknown roles',
    modules: `export default {
      models: { party: { fields: { tax_id: { kind: 'text', read: ['admin', 'acountant', 'hr'] } } } },
      roles: { accountant: { party: ['get'] } },
    };`,
    problems: [
      `${F}: model party, field tax_id: read names unknown role "acountant" (did you mean "accountant"?)`,
      `${F}: model party, field tax_id: read names unknown role "hr" (known roles: admin, accountant)`,
    ],
    located: [
      { file: F, model: 'party', field: 'tax_id', code: 'unknown-read-role' },
      { file: F, model: 'party', field: 'tax_id', code: 'unknown-read-role' },
    ],
  },
  {
    name: 'invalid identifiers',
    modules: {
      CRM: `export default {
        models: {
          Party: { fields: { firstName: { kind: 'text' }, last__name: { kind: 'text' } }, actions: {} },
          lead: { fields: { stage: { kind: 'select', options: ['a', 'b'], governed: true } }, actions: { 'Close-It': { description: 'x', from: 'a', to: 'b' } } },
        },
        roles: { 'Sales Team': { lead: ['get'] } },
      };`,
    },
    problems: [
      `modules/CRM/module.ts: invalid module name "CRM" (${hint}, e.g. "crm"); the folder name is the module name, rename the folder`,
      `modules/CRM/module.ts: model Party: invalid model name "Party" (${hint}, e.g. "party")`,
      `modules/CRM/module.ts: model Party, field firstName: invalid field name "firstName" (${hint}, e.g. "first_name")`,
      `modules/CRM/module.ts: model Party, field last__name: invalid field name "last__name" (${hint}, e.g. "last_name")`,
      `modules/CRM/module.ts: model lead, action Close-It: invalid action name "Close-It" (${hint}, e.g. "close_it")`,
      `modules/CRM/module.ts: role Sales Team: invalid role name "Sales Team" (${hint}, e.g. "sales_team")`,
    ],
    located: [
      { file: 'modules/CRM/module.ts', code: 'invalid-name' },
      { file: 'modules/CRM/module.ts', model: 'Party', code: 'invalid-name' },
      { file: 'modules/CRM/module.ts', model: 'Party', field: 'firstName', code: 'invalid-name' },
      { file: 'modules/CRM/module.ts', model: 'Party', field: 'last__name', code: 'invalid-name' },
      { file: 'modules/CRM/module.ts', model: 'lead', action: 'Close-It', code: 'invalid-name' },
      { file: 'modules/CRM/module.ts', role: 'Sales Team', code: 'invalid-name' },
    ],
  },
  {
    name: 'select with no options or duplicate options',
    modules: `export default { models: { lead: { fields: {
      stage: { kind: 'select', options: [] },
      kind: { kind: 'select', options: ['a', 'b', 'a'] },
      size: { kind: 'select' },
    } } } };`,
    problems: [
      `${F}: model lead, field stage: select has no options (add options: ['first', 'second'])`,
      `${F}: model lead, field kind: select option "a" is listed twice (remove one)`,
      `${F}: model lead, field size: missing "options" (add options: ['first', 'second'])`,
    ],
    located: [
      { file: F, model: 'lead', field: 'stage', code: 'no-select-options' },
      { file: F, model: 'lead', field: 'kind', code: 'duplicate-select-option' },
      { file: F, model: 'lead', field: 'size', code: 'missing-key' },
    ],
  },
  {
    name: 'an action without field when the model has several governed fields, or none',
    modules: `export default { models: {
      lead: {
        fields: {
          stage: { kind: 'select', options: ['new', 'won'], governed: true },
          billing: { kind: 'select', options: ['open', 'billed'], governed: true },
        },
        actions: { win: { description: 'Win', from: 'new', to: 'won' } },
      },
      note: { fields: { text: { kind: 'text' } }, actions: { archive: { description: 'Archive', from: 'a', to: 'b' } } },
    } };`,
    problems: [
      `${F}: model lead, action win: lead has several governed fields (stage, billing); say which one the action moves, e.g. field: 'stage'`,
      `${F}: model note, action archive: note has no governed field for the action to move (add governed: true to a select field)`,
    ],
    details: [
      {
        file: F,
        model: 'lead',
        action: 'win',
        code: 'ambiguous-governed-field',
        message: 'lead has several governed fields',
        detail: 'stage, billing',
        fix: "say which one the action moves, e.g. field: 'stage'",
      },
      {
        file: F,
        model: 'note',
        action: 'archive',
        code: 'no-governed-field',
        message: 'note has no governed field for the action to move',
        fix: 'add governed: true to a select field',
      },
    ],
  },
  {
    name: 'mask labels of personal fields that do not make a token prefix',
    modules: `export default { models: { party: { fields: {
      name: { kind: 'text', personal: true, label: 'Full name' },
      email: { kind: 'text', personal: true, label: 'E-mail' },
      street: { kind: 'text', personal: true, label: 'Street (line 1)' },
      city: { kind: 'text', personal: true, label: 'Straße' },
      phone: { kind: 'text', personal: true, label: '2nd phone' },
    } } } };`,
    problems: [
      `${F}: model party, field street: personal field label "Street (line 1)" gives the masking token prefix "STREET_(LINE_1)", which must be A-Z, 0-9 and _ starting with a letter (use a label of plain letters, digits, spaces or hyphens, e.g. label: 'Street')`,
      `${F}: model party, field phone: personal field label "2nd phone" gives the masking token prefix "2ND_PHONE", which must be A-Z, 0-9 and _ starting with a letter (use a label of plain letters, digits, spaces or hyphens, e.g. label: 'Phone')`,
    ],
    located: [
      { file: F, model: 'party', field: 'street', code: 'invalid-mask-label' },
      { file: F, model: 'party', field: 'phone', code: 'invalid-mask-label' },
    ],
  },
  {
    name: 'module files that do not load or export nothing: a syntax error where the compiler points, with the line and a caret',
    modules: {
      crm: `export const models = {};`,
      broken: `export default { models: { ;`,
      throws: `const missing: any = undefined;\nexport default { models: missing.all };`,
    },
    problems: [
      'modules/broken/module.ts:1:28: Property assignment expected. (TS1136)\n    export default { models: { ;\n                               ^',
      "modules/broken/module.ts:1:29: '}' expected. (TS1005)\n    export default { models: { ;\n                                ^",
      'modules/crm/module.ts: has no default export (write `export default defineModule({...})`)',
      "modules/throws/module.ts:2:34: cannot be loaded: Cannot read properties of undefined (reading 'all') (fix the error in the module file)",
    ],
    located: [
      { file: 'modules/broken/module.ts', line: 1, code: 'module-syntax-error' },
      { file: 'modules/broken/module.ts', line: 1, code: 'module-syntax-error' },
      { file: 'modules/crm/module.ts', code: 'no-default-export' },
      { file: 'modules/throws/module.ts', line: 2, code: 'module-not-loadable' },
    ],
    columns: [28, 29, undefined, 34],
  },
];


describe('validate refuses, with one line and one problem each', () => {
  it.each(REFUSED)('$name', async ({ modules, problems, located: where, details, first, columns }) => {
    const error = await refusal(typeof modules === 'string' ? oneModule(modules) : moduleTree(modules));
    expect(error.problems).toEqual(problems);
    if (where) expect(located(error)).toEqual(where);
    if (details) expect(error.details).toEqual(details);
    if (first) expect(error.details[0]).toMatchObject(first);
    if (columns) expect(error.details.map((problem) => problem.column)).toEqual(columns);
  });
});

describe('validate', () => {
  it('accepts a small valid module', async () => {
    const dir = oneModule(`export default { models: { party: { fields: { name: { kind: 'text', required: true } } } } };`);
    const ir = await loadProject(`${dir}/modules`);
    expect(ir.modules.map((module) => module.name)).toEqual(['crm']);
    expect(ir.roles.map((role) => [role.name, role.commands.length])).toEqual([['admin', 12]]);
  });

  it('builds fields tagged by kind, and the field each action moves', async () => {
    const dir = moduleTree({
      crm: `export default { models: { party: { fields: { name: { kind: 'text', required: true, personal: true, label: 'Full name' } } } } };`,
      sales: `export default {
        dependsOn: ['crm'],
        models: { lead: {
          fields: {
            party: { kind: 'ref', to: 'party' },
            stage: { kind: 'select', options: ['new', 'won'], governed: true },
            size: { kind: 'select', options: ['s', 'l'] },
            notes: { kind: 'longtext' },
          },
          actions: { win: { description: 'Win', from: 'new', to: 'won' } },
        } },
      };`,
    });
    const ir = await loadProject(`${dir}/modules`);
    const [party, lead] = ir.modules.flatMap((module) => module.models);
    expect(party?.fields).toEqual([
      {
        name: 'name',
        kind: 'text',
        label: 'Full name',
        description: '',
        required: true,
        personal: true,
        maskLabel: 'FULL_NAME',
        governed: false,
        readRoles: undefined,
        hiddenFromAgents: false,
        index: false,
        unique: false,
        search: false,
      },
    ]);
    expect(lead?.fields.map((field) => [field.name, field.kind, field.kind === 'select' ? field.options : field.kind === 'ref' ? field.target : field.personal])).toEqual([
      ['party', 'ref', 'party'],
      ['stage', 'select', ['new', 'won']],
      ['size', 'select', ['s', 'l']],
      ['notes', 'longtext', false],
    ]);
    expect(lead?.fields.map((field) => field.governed)).toEqual([false, true, false, false]);
    expect(lead?.actions[0]?.field).toBe('stage');
    expect(lead?.commands.at(-8)).toMatchObject({ id: 'lead.win', kind: 'action', action: { field: 'stage', from: ['new'], to: 'won' } });
    expect(lead?.commands.at(-1)).toMatchObject({ id: 'lead.win_many', kind: 'action_many', needsApproval: true, action: { name: 'win', field: 'stage' } });
    expect(lead?.commands.slice(-7, -1).map((command) => [command.id, command.kind, command.needsApproval])).toEqual([
      ['lead.history', 'history', false],
      ['lead.revert', 'revert', true],
      ['lead.create_many', 'create_many', true],
      ['lead.update_many', 'update_many', true],
      ['lead.delete_many', 'delete_many', true],
      ['lead.revert_batch', 'revert_batch', true],
    ]);
    expect(Object.isFrozen(lead?.fields[1])).toBe(true);
  });

  it('a ref through an indirect dependency is fine', async () => {
    const dir = moduleTree({
      a: `export default { models: { one: { fields: { name: { kind: 'text' } } } } };`,
      b: `export default { dependsOn: ['a'], models: {} };`,
      c: `export default { dependsOn: ['b'], models: { two: { fields: { one: { kind: 'ref', to: 'one' } } } } };`,
    });
    const ir = await loadProject(`${dir}/modules`);
    expect(ir.modules.map((module) => module.name)).toEqual(['a', 'b', 'c']);
  });

  it('lets a module grant its roles rights on models of the modules it depends on, added to the owner\'s grants', async () => {
    const dir = moduleTree({
      crm: `export default {
        models: { party: { fields: { name: { kind: 'text', required: true } } } },
        roles: { helpdesk: { party: ['get'] }, sales: { party: '*' } },
      };`,
      support: `export default {
        dependsOn: ['crm'],
        models: { ticket: { fields: { subject: { kind: 'text', required: true }, party: { kind: 'ref', to: 'party' } } } },
        roles: { helpdesk: { ticket: '*', party: ['list', 'search'] } },
      };`,
    });
    const project = await loadProject(`${dir}/modules`);
    const helpdesk = project.roles.find((role) => role.name === 'helpdesk')!;
    // party.get brings party.history; ticket '*' includes history, revert and the bulk commands.
    expect(helpdesk.commands).toEqual([
      'party.get',
      'party.list',
      'party.search',
      'party.history',
      ...['get', 'list', 'search', 'create', 'update', 'delete', 'history', 'revert', 'create_many', 'update_many', 'delete_many', 'revert_batch'].map((c) => `ticket.${c}`),
    ]);
    expect(project.modules.find((module) => module.name === 'support')!.grants).toEqual([
      { role: 'helpdesk', model: 'ticket', commands: ['*'] },
      { role: 'helpdesk', model: 'party', commands: ['list', 'search'] },
    ]);
  });

  it('shapes the loader cannot type-check: unknown keys, wrong types, missing keys', async () => {
    const dir = oneModule(`export default {
      modles: {},
    };`);
    const error = await refusal(dir);
    expect(error.problems).toEqual([
      `${F}: missing "models" (add models: { <name>: { fields: {...} } })`,
      `${F}: unknown key "modles" (did you mean "models"? valid keys: label, description, dependsOn, currency, models, roles)`,
    ]);
    expect(located(error)).toEqual([
      { file: F, code: 'missing-key' },
      { file: F, code: 'unknown-key' },
    ]);
    const dir2 = oneModule(`export default { models: {
      lead: {
        fields: { title: { kind: 'text', required: 'yes', colour: 'red' }, party: { kind: 'ref' } },
        actions: { win: { from: 'a', to: 'b', needs_approval: 1 } },
      },
      party: 'x',
    } };`);
    const error2 = await refusal(dir2);
    expect(error2.problems).toEqual([
      `${F}: model lead, field title: "required" must be true or false (got "yes")`,
      `${F}: model lead, field title: unknown key "colour" (valid keys: kind, label, description, required, personal, read, write, agents, index, unique, default, computed, search, length, pattern)`,
      `${F}: model lead, field party: missing "to" (add to: '<target model>')`,
      `${F}: model lead, action win: "needs_approval" must be true or false (got 1)`,
      `${F}: model party: must be an object (write party: { fields: {...} }; got "x")`,
    ]);
    expect(located(error2)).toEqual([
      { file: F, model: 'lead', field: 'title', code: 'invalid-value' },
      { file: F, model: 'lead', field: 'title', code: 'unknown-key' },
      { file: F, model: 'lead', field: 'party', code: 'missing-key' },
      { file: F, model: 'lead', action: 'win', code: 'invalid-value' },
      { file: F, model: 'party', code: 'not-an-object' },
    ]);
    expect(error2.details[0]).toEqual({
      file: F,
      model: 'lead',
      field: 'title',
      code: 'invalid-value',
      message: '"required" must be true or false',
      detail: 'got "yes"',
    });
  });

  it('a missing modules folder', async () => {
    await expect(loadProject('/nonexistent/modules')).rejects.toThrow('/nonexistent/modules: modules folder not found (create it, or pass --modules <dir>)');
    await expect(loadProject('/nonexistent/modules')).rejects.toMatchObject({ details: [{ file: '/nonexistent/modules', code: 'modules-folder-not-found' }] });
  });
});
