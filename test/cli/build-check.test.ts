/**
 * The real `rmsgen build` / `rmsgen check` on fixture trees in temp folders: error lines and
 * exit status, output left intact on failure, a new module showing up, `--check`, and the
 * refusal to write into a folder that does not look generated.
 */
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generate, loadProject } from '../../generator/pipeline.ts';
import { writeOutput } from '../../generator/write.ts';
import type { Registry } from '../../runtime/registry.ts';
import { FIXTURE_GENERATED_DIR } from '../helpers/fixtures.ts';
import { moduleTree, removeModuleTrees, rmsgen, rmsgenInProcess, ROOT, snapshotFolder } from '../helpers/module-trees.ts';

afterAll(removeModuleTrees);

const BROKEN = `export default {
  models: {
    lead: {
      fields: { title: { kind: 'txt' }, party: { kind: 'ref', to: 'prty' } },
    },
    party: { fields: { name: { kind: 'text' } } },
  },
};`;

const BROKEN_LINES = [
  'modules/crm/module.ts: model lead, field title: unknown kind "txt" (did you mean "text"? valid kinds: text, longtext, number, money, date, bool, select, ref, decimal, datetime, email, url, phone, multiselect, file)',
  'modules/crm/module.ts: model lead, field party: ref to unknown model "prty" (did you mean "party"?)',
];

const HELPDESK = `import { defineModule } from '${join(ROOT, 'generator/define.ts')}';
export default defineModule({
  label: 'Helpdesk',
  dependsOn: ['crm'],
  models: {
    ticket: {
      fields: {
        subject: { kind: 'text', required: true },
        party: { kind: 'ref', to: 'party', required: true },
        status: { kind: 'select', options: ['open', 'closed'], governed: true },
      },
      actions: { close: { description: 'Close a ticket', from: 'open', to: 'closed' } },
    },
  },
  roles: { sales: { ticket: ['get', 'list', 'close'] }, support: { ticket: '*' } },
});`;

// The first tests spawn the real CLI; the rest run its build and check in this process
// (rmsgenInProcess: the same command and output, without loading tsx and TypeScript again each time).
describe.concurrent('rmsgen CLI', { timeout: 120_000 }, () => {
  it('check: one line per problem on stderr, exit status 1', async () => {
    const dir = moduleTree({ crm: BROKEN });
    const result = await rmsgen(['check', '--modules', 'modules'], dir);
    expect(result.stderr.trimEnd().split('\n')).toEqual(BROKEN_LINES);
    expect(result.stdout).toBe('');
    expect(result.status).toBe(1);
  });

  it('check: index, unique, search, currency, indexes and list where they do not fit, one line each', async () => {
    const fields = `{
        number: { kind: 'text', unique: true },
        notes: { kind: 'longtext', index: true },
        paid: { kind: 'bool', unique: true },
        total: { kind: 'money', search: true, currency: 'EURO' },
        email: { kind: 'text', personal: true, unique: true },
        count: { kind: 'number', currency: 'EUR' },
      }`;
    const dir = moduleTree({
      shop: `export default { models: { order: { fields: ${fields}, indexes: [['number', 'missing'], [], ['number'], ['number']], list: ['nope', 'number', 'number'] } } };`,
    });
    const result = await rmsgenInProcess(['check', '--modules', 'modules'], dir);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      'modules/shop/module.ts: model order, field notes: an index on a longtext field is refused: its values are too long to index (use search: true to find text in it)',
      'modules/shop/module.ts: model order, field paid: unique is not for bool fields (remove unique)',
      'modules/shop/module.ts: model order, field total: search is only for text and longtext fields (remove search, or make the field text)',
      'modules/shop/module.ts: model order, field total: "currency" must be an ISO 4217 currency code of three capital letters, e.g. "EUR" (got "EURO")',
      "modules/shop/module.ts: model order, field email: unique on a personal field agents may write would tell an agent whether a value it wrote is held by another record (remove unique, or add agents: 'hidden')",
      "modules/shop/module.ts: model order, field count: currency is only for money fields (make it kind: 'money', or remove currency)",
      'modules/shop/module.ts: model order: indexes[0] names unknown field "missing" (known fields: number, notes, paid, total, email, count)',
      "modules/shop/module.ts: model order: indexes[1] names no field (name the fields, e.g. ['stage', 'expected_revenue'])",
      'modules/shop/module.ts: model order: indexes[3] is declared twice (remove one)',
      'modules/shop/module.ts: model order: list names unknown field "nope" (did you mean "notes"?)',
      'modules/shop/module.ts: model order: list names field "number" twice (remove one)',
    ]);

    const moduleCurrency = moduleTree({ shop: `export default { currency: 'euro', models: { order: { fields: { total: { kind: 'money' } } } } };` });
    const currency = await rmsgenInProcess(['check', '--modules', 'modules'], moduleCurrency);
    expect(currency.status).toBe(1);
    expect(currency.stderr).toBe('modules/shop/module.ts: "currency" must be an ISO 4217 currency code of three capital letters, e.g. "EUR" (got "euro")\n');
  });

  it('build with the default --out: a removed module leaves neither its files nor its folder', async () => {
    const dir = moduleTree({
      crm: `export default { models: { party: { fields: { name: { kind: 'text', required: true } } } } };`,
      desk: `export default { models: { ticket: { fields: { subject: { kind: 'text', required: true } } } } };`,
    });
    expect((await rmsgen(['build'], dir)).status).toBe(0);
    expect(existsSync(join(dir, 'generated/desk/ticket.model.ts'))).toBe(true);
    rmSync(join(dir, 'modules/desk'), { recursive: true });
    const rebuilt = await rmsgen(['build'], dir);
    expect(rebuilt.stderr).toBe('');
    expect(rebuilt.status).toBe(0);
    expect(existsSync(join(dir, 'generated/desk'))).toBe(false);
    expect(existsSync(join(dir, 'generated/crm/party.model.ts'))).toBe(true);
  });

  it('check: history and revert are generated for every model, so no action may take their names', async () => {
    const dir = moduleTree({
      desk: `export default { models: { ticket: {
        fields: { state: { kind: 'select', options: ['open', 'closed'], governed: true } },
        actions: { history: { description: 'Show it', from: 'open', to: 'closed' }, revert: { description: 'Undo it', from: 'closed', to: 'open' } },
      } } };`,
    });
    const result = await rmsgenInProcess(['check', '--modules', 'modules'], dir);
    expect(result.status).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      'modules/desk/module.ts: model ticket, action history: name collides with the generated command ticket.history (rename the action)',
      'modules/desk/module.ts: model ticket, action revert: name collides with the generated command ticket.revert (rename the action)',
    ]);
  });

  // A refused part (an unknown key, a missing one) is the first cause: references to it from
  // other parts, in the same module or another, are not reported as problems of their own.
  it.each<{ case: string; modules: Record<string, string>; lines: string[] }>([
    {
      case: 'a model with an unknown key, granted and referred to in its module',
      modules: {
        lettings: `export default { models: {
          unit: { colour: 'red', fields: { code: { kind: 'text', required: true } } },
          lease: { fields: { unit: { kind: 'ref', to: 'unit' } } },
        }, roles: { manager: { unit: '*', lease: ['get'] } } };`,
      },
      lines: ['modules/lettings/module.ts: model unit: unknown key "colour" (valid keys: label, description, title, fields, lines, actions, indexes, unique, locked_in, rules, list)'],
    },
    {
      case: 'a model missing its fields, granted and referred to from a module that depends on it',
      modules: {
        estate: `export default { models: { property: { label: 'Property' } } };`,
        lettings: `export default { dependsOn: ['estate'], models: {
          unit: { fields: { property: { kind: 'ref', to: 'property', required: true } } },
        }, roles: { manager: { property: ['get', 'list'], unit: '*' } } };`,
      },
      lines: ['modules/estate/module.ts: model property: missing "fields" (add fields: { <name>: { kind: \'text\' } })'],
    },
    {
      case: 'a module with an unknown key: its models, granted and referred to elsewhere, and its roles, read elsewhere',
      modules: {
        estate: `export default { colour: 'red', models: { property: { fields: { name: { kind: 'text' } } } }, roles: { owner: { property: '*' } } };`,
        lettings: `export default { dependsOn: ['estate'], models: {
          unit: { fields: { property: { kind: 'ref', to: 'property' }, code: { kind: 'text', read: ['owner'] } } },
        }, roles: { manager: { property: ['get'], unit: '*' } } };`,
      },
      lines: ['modules/estate/module.ts: unknown key "colour" (valid keys: label, description, dependsOn, currency, models, roles)'],
    },
    {
      case: 'an action missing its to state, granted',
      modules: {
        lettings: `export default { models: { lease: {
          fields: { state: { kind: 'select', options: ['draft', 'active'], governed: true } },
          actions: { activate: { description: 'Activate', from: 'draft' } },
        } }, roles: { manager: { lease: ['get', 'activate'] } } };`,
      },
      lines: ["modules/lettings/module.ts: model lease, action activate: missing \"to\" (add to: '<state>')"],
    },
    {
      case: 'a refused part does not hide the problems that are not its consequences',
      modules: {
        lettings: `export default { models: {
          unit: { colour: 'red', fields: {} },
          lease: { fields: { unit: { kind: 'ref', to: 'unit' }, tenant: { kind: 'ref', to: 'tenant' } } },
        }, roles: { manager: { unit: '*', lease: ['get', 'end'], tenant: ['get'] } } };`,
      },
      lines: [
        'modules/lettings/module.ts: model unit: unknown key "colour" (valid keys: label, description, title, fields, lines, actions, indexes, unique, locked_in, rules, list)',
        'modules/lettings/module.ts: model lease, field tenant: ref to unknown model "tenant" (known models: lease)',
        'modules/lettings/module.ts: role manager, model lease: unknown command "end" (commands of lease: get, list, search, create, update, delete, history, revert, create_many, update_many, delete_many, revert_batch)',
        'modules/lettings/module.ts: role manager: grant on unknown model "tenant" (known models this module may grant: lease)',
      ],
    },
  ])('check reports the first cause, not its consequences: $case', async ({ modules, lines }) => {
    const result = await rmsgenInProcess(['check', '--modules', 'modules'], moduleTree(modules));
    expect(result.stderr.trimEnd().split('\n')).toEqual(lines);
    expect(result.status).toBe(1);
  });

  it('build: index, unique, search, indexes and list reach the generated model and its queries', async () => {
    const dir = moduleTree({
      shop: `export default { models: { order: { fields: { number: { kind: 'text', unique: true, search: true }, placed: { kind: 'date', index: true }, state: { kind: 'select', options: ['open', 'paid'] }, total: { kind: 'money', currency: 'EUR' } }, indexes: [['state', 'placed']], list: ['placed', 'total'] } } };`,
    });
    const result = await rmsgenInProcess(['build', '--modules', 'modules', '--out', 'generated'], dir);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const model = readFileSync(join(dir, 'generated/shop/order.model.ts'), 'utf8');
    expect(model).toContain(
      [
        '    indexes: [',
        "      { fields: ['number'], unique: true },",
        "      { fields: ['placed'], unique: false },",
        "      { fields: ['state', 'placed'], unique: false },",
        '    ],',
        "    search: ['number'],",
      ].join('\n'),
    );
    expect(model).toContain(`list: ['placed', 'total']`);
    expect(model).toContain(`currency: 'EUR'`);
    const queries = readFileSync(join(dir, 'generated/shop/order.queries.ts'), 'utf8');
    expect(queries).toContain(`const UNIQUE = uniqueFields('order', ['number']);`);
  });

  it('check: a syntax error as file:line:column, the line and a caret; a type error in the same form', async () => {
    const syntax = moduleTree({ support: `export default {\n  models: { ticket: { fields: { subject: { kind: 'text' required: true } } } },\n};\n` });
    const broken = await rmsgenInProcess(['check', '--modules', 'modules'], syntax);
    expect(broken.status).toBe(1);
    expect(broken.stdout).toBe('');
    expect(broken.stderr.trimEnd().split('\n')).toEqual([
      "modules/support/module.ts:2:57: ',' expected. (TS1005)",
      "      models: { ticket: { fields: { subject: { kind: 'text' required: true } } } },",
      '                                                            ^',
    ]);

    const typed = moduleTree({
      support: `const greeting: number = 'hello';\nexport default { models: { ticket: { label: greeting > 1 ? 'Ticket' : 'Case', fields: { subject: { kind: 'text' } } } } };\n`,
    });
    const mistyped = await rmsgenInProcess(['check', '--modules', 'modules'], typed);
    expect(mistyped.status).toBe(1);
    expect(mistyped.stderr.trimEnd().split('\n')).toEqual([
      "modules/support/module.ts:1:7: Type 'string' is not assignable to type 'number'. (TS2322)",
      "    const greeting: number = 'hello';",
      '          ^',
    ]);
  });

  it('check: a summary per module, with the grants a module gives on models of the modules it depends on', async () => {
    const dir = moduleTree({ helpdesk: HELPDESK.replace("roles: { sales:", "roles: { support: { ticket: '*', party: ['get', 'search'] }, sales:").replace(", support: { ticket: '*' } }", ' }') }, { copyFixtures: true });
    const result = await rmsgenInProcess(['check', '--modules', 'modules'], dir);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      'modules/: 4 modules, 5 models, 83 commands, 4 roles; no problems',
      '  crm: party, lead; grants sales: party *, lead *; accountant: party get list search create update, lead get list search',
      '  accounting: invoice; grants sales: invoice get list search; accountant: invoice *',
      '  helpdesk: ticket; grants support: ticket *, party (of a module it depends on) get search; sales: ticket get list close',
      '  sales: order; grants sales: order *; accountant: order get list search update',
    ]);
  });

  it('build with a broken module leaves the existing output untouched', async () => {
    const dir = moduleTree({ crm: BROKEN });
    cpSync(FIXTURE_GENERATED_DIR, join(dir, 'generated'), { recursive: true });
    const before = snapshotFolder(join(dir, 'generated'));
    const result = await rmsgenInProcess(['build', '--modules', 'modules', '--out', 'generated'], dir);
    expect(result.status).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual(BROKEN_LINES);
    expect(snapshotFolder(join(dir, 'generated'))).toEqual(before);
  });

  it('a module added under a copy of modules/ appears after build; --check then tracks the output', async () => {
    const dir = moduleTree({ helpdesk: HELPDESK }, { copyFixtures: true });
    const out = join(dir, 'generated');
    const build = await rmsgenInProcess(['build', '--modules', 'modules', '--out', 'generated'], dir);
    expect(build.stderr).toBe('');
    expect(build.stdout).toBe('generated 34 files (34 changed) in generated/\n');
    expect(build.status).toBe(0);
    expect(Object.keys(snapshotFolder(out)).filter((path) => path.startsWith('helpdesk/'))).toEqual([
      'helpdesk/ticket.commands.ts',
      'helpdesk/ticket.logic.ts',
      'helpdesk/ticket.model.ts',
      'helpdesk/ticket.queries.ts',
      'helpdesk/ticket.schemas.ts',
      'helpdesk/ticket.tools.ts',
    ]);
    const { registry } = (await import(pathToFileURL(join(out, 'registry.ts')).href)) as { registry: Registry };
    expect(registry.modules.map((module) => module.name)).toEqual(['crm', 'accounting', 'helpdesk', 'sales']);
    expect(Object.keys(registry.models)).toEqual(['party', 'lead', 'invoice', 'ticket', 'order']);
    expect(Object.keys(registry.commands).filter((id) => id.startsWith('ticket.'))).toEqual([
      'ticket.get',
      'ticket.list',
      'ticket.search',
      'ticket.create',
      'ticket.update',
      'ticket.delete',
      'ticket.close',
      'ticket.history',
      'ticket.revert',
      'ticket.create_many',
      'ticket.update_many',
      'ticket.delete_many',
      'ticket.revert_batch',
      'ticket.close_many',
    ]);
    expect(registry.roles.support).toEqual(Object.keys(registry.commands).filter((id) => id.startsWith('ticket.')));
    expect(registry.roles.sales?.filter((id) => id.startsWith('ticket.'))).toEqual(['ticket.get', 'ticket.list', 'ticket.close', 'ticket.history', 'ticket.close_many']);
    expect(registry.models.party?.referencedBy).toContainEqual({ model: 'ticket', field: 'party' });
    expect(registry.tools.ticket__close?.title).toBe('Close ticket');

    // Fresh output: --check is happy.
    const fresh = await rmsgenInProcess(['build', '--check', '--modules', 'modules', '--out', 'generated'], dir);
    expect(fresh).toEqual({ status: 0, stdout: 'generated/ is up to date (34 files)\n', stderr: '' });

    // Edit one file, delete another, add a generated-looking leftover: --check lists them and writes nothing.
    appendFileSync(join(out, 'crm/lead.model.ts'), '// hand edit\n');
    unlinkSync(join(out, 'roles.ts'));
    mkdirSync(join(out, 'old'));
    writeFileSync(join(out, 'old/gone.ts'), '// Generated by rmsgen from modules/old/module.ts — do not edit.\n');
    const before = snapshotFolder(out);
    const stale = await rmsgenInProcess(['build', '--check', '--modules', 'modules', '--out', 'generated'], dir);
    expect(stale.status).toBe(1);
    expect(stale.stderr.trimEnd().split('\n')).toEqual([
      'generated/crm/lead.model.ts: stale',
      'generated/roles.ts: missing',
      'generated/old/gone.ts: no longer generated',
      'generated/ is out of date; run `npx rmsgen build` and commit the result',
    ]);
    expect(snapshotFolder(out)).toEqual(before);

    // Writing the same file map repairs exactly that (in-process: the CLI is just this plus a summary).
    const repair = writeOutput(out, generate(await loadProject(join(dir, 'modules')), out));
    expect(repair).toMatchObject({ stale: ['crm/lead.model.ts'], missing: ['roles.ts'], extra: ['old/gone.ts'], unchanged: 32 });
    expect(readFileSync(join(out, 'crm/lead.model.ts'), 'utf8')).not.toContain('hand edit');
    expect(snapshotFolder(out)['old/gone.ts']).toBeUndefined();
    expect(writeOutput(out, generate(await loadProject(join(dir, 'modules')), out))).toMatchObject({ stale: [], missing: [], extra: [], unchanged: 34 });
  }, 120_000);

  it('refuses to write into a folder holding files it did not generate', async () => {
    const dir = moduleTree({}, { copyFixtures: true });
    const out = join(dir, 'src');
    mkdirSync(out);
    writeFileSync(join(out, 'index.ts'), 'export const handWritten = true;\n');
    const result = await rmsgenInProcess(['build', '--modules', 'modules', '--out', 'src'], dir);
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      'src/: holds files rmsgen did not generate (index.ts); refusing to write there (move them away, or choose another --out)\n',
    );
    expect(snapshotFolder(out)).toEqual({ 'index.ts': 'export const handWritten = true;\n' });
  });
});
