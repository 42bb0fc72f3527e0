/**
 * The migration planner on its own, no database: a design, the recorded design, what the database
 * holds and the mode go in; steps, problems and things left in place come out. A fake database
 * answers the planner's questions from a few stored values, and every case checks which questions
 * were asked, round by round, so that a table where nothing changed is never counted.
 */
import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../../../runtime/db/connect.ts';
import { inspectedTable, type DataQuestion, type InspectedDatabase, type InspectedTable, type ValueCount } from '../../../../runtime/db/migrate/inspected.ts';
import { planMigration } from '../../../../runtime/db/migrate/plan.ts';
import { snapshotOf, type TableSnapshot } from '../../../../runtime/db/migrate/snapshot.ts';
import type { MigrationMode, MigrationPlan, MigrationStep } from '../../../../runtime/db/migrate/steps.ts';
import type { ColumnType, FieldKind, FieldMeta, ModelMeta } from '../../../../runtime/registry.ts';

// ---------------------------------------------------------------------------------------------
// Designs: one model, `deal`, described field by field

interface FieldSpec {
  readonly kind: FieldKind;
  readonly required?: boolean;
  readonly default?: string;
  readonly options?: readonly string[];
  readonly target?: string;
  readonly indexed?: boolean;
}
type Design = Readonly<Record<string, FieldSpec>>;

const COLUMN_TYPES: Record<FieldKind, ColumnType> = {
  text: 'text',
  longtext: 'text',
  select: 'text',
  number: 'integer',
  money: 'integer',
  date: 'date',
  bool: 'bool',
  ref: 'id',
  decimal: 'integer',
  datetime: 'text',
  email: 'text',
  url: 'text',
  phone: 'text',
  multiselect: 'text',
  file: 'text',
};

function model(design: Design, name = 'deal'): ModelMeta {
  const entries = Object.entries(design);
  const fields: FieldMeta[] = entries.map(([field, spec]) => ({
    name: field,
    kind: spec.kind,
    label: field,
    description: '',
    required: spec.required ?? false,
    personal: false,
    governed: false,
    hiddenFromAgents: false,
    computed: false,
    ...(spec.options ? { options: spec.options } : {}),
    ...(spec.target ? { target: spec.target } : {}),
  }));
  return {
    name,
    module: 'sales',
    label: name,
    description: '',
    table: {
      name,
      columns: [
        { name: 'id', type: 'id', notNull: true },
        ...entries.map(([field, spec]) => ({
          name: field,
          type: COLUMN_TYPES[spec.kind],
          notNull: spec.required ?? false,
          ...(spec.default === undefined ? {} : { default: spec.default }),
        })),
      ],
      indexes: entries.filter(([, spec]) => spec.indexed).map(([field]) => field),
    },
    titleField: 'title',
    fields,
    actions: [],
    referencedBy: [],
    lines: [],
    uniques: [],
    rules: [],
  };
}

const DEAL: Design = {
  title: { kind: 'text', required: true },
  stage: { kind: 'select', options: ['new', 'won', 'lost'], required: true, default: 'new', indexed: true },
  amount: { kind: 'money' },
  reason: { kind: 'text' },
  party: { kind: 'ref', target: 'party', indexed: true },
};

function changed(field: string, spec: Partial<FieldSpec>, base: Design = DEAL): Design {
  return { ...base, [field]: { ...base[field]!, ...spec } };
}

function without(field: string, base: Design = DEAL): Design {
  const { [field]: _removed, ...rest } = base;
  return rest;
}

// ---------------------------------------------------------------------------------------------
// A fake database: its columns, its rows, and the values some columns hold

interface StoredTable {
  /** Default: `id` and the recorded design's columns (else the design's). */
  readonly columns?: readonly string[];
  readonly rows?: number;
  /** Per column, value → rows holding it; a column not named here holds no value. */
  readonly values?: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

function answer(known: InspectedTable, question: DataQuestion, stored: StoredTable): InspectedTable {
  const values = (column: string): ValueCount[] => Object.entries(stored.values?.[column] ?? {});
  switch (question.kind) {
    case 'rows':
      return { ...known, rows: stored.rows ?? 0 };
    case 'filled':
      return { ...known, filled: new Map([...known.filled, [question.column, values(question.column).reduce((sum, [, n]) => sum + n, 0)]]) };
    case 'values-outside': {
      const outside = values(question.column).filter(([value]) => !question.options.includes(value));
      return { ...known, valuesOutside: new Map([...known.valuesOutside, [question.column, outside.slice(0, 5)]]) };
    }
    case 'values-used': {
      const used = values(question.column).filter(([value]) => question.values.includes(value));
      return { ...known, valuesUsed: new Map([...known.valuesUsed, [question.column, used]]) };
    }
    case 'duplicates': {
      // The fake keeps values per column: a unique index over one column.
      const shared = values(question.columns[0]!).filter(([, n]) => n > 1);
      return { ...known, duplicates: new Map([...(known.duplicates ?? []), [question.columns.join(','), shared.slice(0, 5)]]) };
    }
  }
}

function describeQuestion(question: DataQuestion): string {
  switch (question.kind) {
    case 'rows':
      return `rows of ${question.table}`;
    case 'filled':
      return `filled ${question.table}.${question.column}`;
    case 'values-outside':
      return `values of ${question.table}.${question.column} outside ${question.options.join(', ')}`;
    case 'values-used':
      return `uses of ${question.table}.${question.column} as ${question.values.join(', ')}`;
    case 'duplicates':
      return `duplicates of ${question.table} (${question.columns.join(', ')})`;
  }
}

function describeStep(step: MigrationStep): string {
  const dropping = (indexes: readonly { name: string }[]) => (indexes.length > 0 ? ` (dropping ${indexes.map((index) => index.name).join(', ')})` : '');
  switch (step.kind) {
    case 'create-table':
      return `${step.recreate ? 'recreate' : 'create'} table ${step.model.table.name} with ${step.indexes.map((index) => index.name).join(', ') || 'no index'}`;
    case 'add-column':
      return `add column ${step.model.table.name}.${step.column.name}`;
    case 'drop-column':
      return `drop column ${step.table}.${step.column}${dropping(step.indexes)}`;
    case 'replace-column':
      return `replace column ${step.model.table.name}.${step.column.name} by a ${step.column.type} column${dropping(step.indexes)}`;
    case 'alter-not-null':
      return `${step.notNull ? 'set' : 'drop'} not null on ${step.table}.${step.column}`;
    case 'rebuild-table':
      return `rebuild table ${step.model.table.name} keeping ${step.keep.join(', ')} with ${step.indexes.map((index) => index.name).join(', ')}`;
    case 'add-index':
      return `add index ${step.index.name} on ${step.index.table} (${step.index.columns.join(', ')})`;
    case 'drop-index':
      return `drop index ${step.index.name}`;
    case 'drop-table':
      return `drop table ${step.table}`;
  }
}

interface Case {
  readonly name: string;
  readonly mode: MigrationMode;
  /** Default `sqlite`. */
  readonly dialect?: Dialect;
  /** What the last migration recorded for `deal`; absent: nothing recorded. */
  readonly recorded?: Design;
  /** What this version designs for `deal`; absent: the model was removed. */
  readonly design?: Design;
  /** The `deal` table in the database; absent: it does not exist. */
  readonly table?: StoredTable;
  readonly steps?: readonly string[];
  readonly problems?: readonly string[];
  readonly leftInPlace?: readonly string[];
  readonly forgotten?: readonly string[];
  /** The questions about stored data, round by round. Default: none. */
  readonly asks?: readonly (readonly string[])[];
  /** The snapshot recorded for `deal`. Default: the design's. */
  readonly snapshot?: TableSnapshot;
}

function plan(c: Case): { plan: MigrationPlan; asks: string[][] } {
  const recorded = new Map(c.recorded ? [['deal', snapshotOf(model(c.recorded))] as const] : []);
  const columns = c.table?.columns ?? ['id', ...Object.keys(c.recorded ?? c.design ?? {})];
  let inspected: InspectedDatabase = { dialect: c.dialect ?? 'sqlite', tables: new Map(c.table ? [['deal', inspectedTable(columns)]] : []) };
  const asks: string[][] = [];
  for (let round = 0; round < 5; round++) {
    const outcome = planMigration({ models: c.design ? { deal: model(c.design) } : {} }, recorded, inspected, c.mode);
    if (outcome.kind === 'planned') return { plan: outcome.plan, asks };
    asks.push(outcome.questions.map(describeQuestion));
    let deal = inspected.tables.get('deal')!;
    for (const question of outcome.questions) deal = answer(deal, question, c.table!);
    inspected = { ...inspected, tables: new Map([['deal', deal]]) };
  }
  throw new Error('the planner keeps asking');
}

function check(c: Case): void {
  const { plan: result, asks } = plan(c);
  expect({
    steps: result.steps.map(describeStep),
    problems: result.problems,
    leftInPlace: result.leftInPlace,
    forgotten: result.forgotten,
    asks,
    snapshots: result.snapshots,
  }).toEqual({
    steps: c.steps ?? [],
    problems: c.problems ?? [],
    leftInPlace: c.leftInPlace ?? [],
    forgotten: c.forgotten ?? [],
    asks: c.asks ?? [],
    snapshots: c.snapshot ? [c.snapshot] : c.design ? [snapshotOf(model(c.design))] : [],
  });
}

/** The case on SQLite and on PostgreSQL (where a model's table also has its ids byte by byte: index-design.ts). */
function onBoth(c: Omit<Case, 'dialect'>): Case[] {
  const steps = c.steps?.map((step) => step.replace(`deal with ${ALL_INDEXES}`, `deal with ${ALL_INDEXES}, rms_ix_deal_id`));
  return [
    { ...c, dialect: 'sqlite' },
    { ...c, dialect: 'postgres', ...(steps ? { steps } : {}) },
  ];
}

const LEFT = 'left in place for rmsgen migrate: ';

function withIndexes(design: Design, indexes: readonly string[]): TableSnapshot {
  const snapshot = snapshotOf(model(design));
  return { ...snapshot, table: { ...snapshot.table, indexes } };
}
const ALL_INDEXES = 'rms_idx_deal_stage, rms_idx_deal_party';
const ROWS = [['rows of deal']];

// ---------------------------------------------------------------------------------------------

describe.each<{ title: string; cases: Case[] }>([
  {
    title: 'tables',
    cases: [
      ...(['full', 'additive'] as const).map((mode) => ({
        name: `a new model gets its table (${mode})`,
        mode,
        design: DEAL,
        steps: [`create table deal with ${ALL_INDEXES}`],
      })),
      ...(['full', 'additive'] as const).map((mode) => ({
        name: `a table where nothing changed is left alone, without counting anything (${mode})`,
        mode,
        recorded: DEAL,
        design: DEAL,
        table: { rows: 1_000_000, values: { title: { a: 1_000_000 } } },
      })),
      {
        name: 'full: a removed model’s empty table is dropped',
        mode: 'full',
        recorded: DEAL,
        table: {},
        steps: ['drop table deal'],
        forgotten: ['deal'],
        asks: ROWS,
      },
      {
        name: 'full: a removed model’s table with rows is refused',
        mode: 'full',
        recorded: DEAL,
        table: { rows: 3 },
        problems: ['model deal was removed, but its table deal holds 3 row(s): put the model back, or delete its records first and migrate again'],
        asks: ROWS,
      },
      {
        name: 'additive: a removed model’s table is left in place, uncounted',
        mode: 'additive',
        recorded: DEAL,
        table: { rows: 3 },
        leftInPlace: [`${LEFT}table deal (model deal is not in this version's definitions)`],
      },
      ...(['full', 'additive'] as const).map((mode) => ({
        name: `a removed model whose table is gone is forgotten (${mode})`,
        mode,
        recorded: DEAL,
        forgotten: ['deal'],
      })),
      ...(['full', 'additive'] as const).map((mode) => ({
        name: `a table no migration recorded gets the design's indexes (${mode})`,
        mode,
        design: DEAL,
        table: { rows: 2 },
        steps: ['add index rms_idx_deal_stage on deal (stage)', 'add index rms_idx_deal_party on deal (party)'],
      })),
    ],
  },
  {
    title: 'new columns',
    cases: [
      {
        name: 'full: an optional column is added to a table with rows',
        mode: 'full',
        recorded: DEAL,
        design: { ...DEAL, score: { kind: 'number' } },
        table: { rows: 2 },
        steps: ['add column deal.score'],
        asks: ROWS,
      },
      {
        name: 'full: an empty table that changes is made again',
        mode: 'full',
        recorded: DEAL,
        design: { ...DEAL, score: { kind: 'number' } },
        table: {},
        steps: [`recreate table deal with ${ALL_INDEXES}`],
        asks: ROWS,
      },
      {
        name: 'additive: an optional column is added, even to an empty table, without counting rows',
        mode: 'additive',
        recorded: DEAL,
        design: { ...DEAL, score: { kind: 'number' } },
        table: {},
        steps: ['add column deal.score'],
      },
      ...(['full', 'additive'] as const).map((mode) => ({
        name: `a required column with a default is added to a table with rows, with its index (${mode})`,
        mode,
        recorded: DEAL,
        design: { ...DEAL, priority: { kind: 'select', options: ['normal', 'high'], required: true, default: 'normal', indexed: true } as const },
        table: { rows: 2 },
        steps: ['add column deal.priority', 'add index rms_idx_deal_priority on deal (priority)'],
        asks: mode === 'full' ? ROWS : [],
      })),
      ...(['full', 'additive'] as const).flatMap((mode) =>
        onBoth({
          name: `a required column without a default is refused on a table with rows (${mode})`,
          mode,
          recorded: DEAL,
          design: { ...DEAL, code: { kind: 'text', required: true } },
          table: { rows: 2 },
          problems: ['deal.code is new and required, but deal has 2 row(s) and the field has no default: add it as optional, fill it in, then make it required'],
          asks: ROWS,
        }),
      ),
      ...onBoth({
        name: 'full: a required column without a default is added to an empty table by making it again',
        mode: 'full',
        recorded: DEAL,
        design: { ...DEAL, code: { kind: 'text', required: true } },
        table: {},
        steps: [`recreate table deal with ${ALL_INDEXES}`],
        asks: ROWS,
      }),
      {
        name: 'additive on SQLite: a required column without a default is added to an empty table by making it again',
        mode: 'additive',
        recorded: DEAL,
        design: { ...DEAL, code: { kind: 'text', required: true } },
        table: {},
        steps: [`recreate table deal with ${ALL_INDEXES}`],
        asks: ROWS,
      },
      {
        name: 'additive on PostgreSQL: a required column without a default is added to an empty table',
        mode: 'additive',
        dialect: 'postgres',
        recorded: DEAL,
        design: { ...DEAL, code: { kind: 'text', required: true } },
        table: {},
        steps: ['add column deal.code'],
        asks: ROWS,
      },
      {
        name: 'additive on SQLite: making the empty table again is refused when it would drop what is left in place',
        mode: 'additive',
        recorded: { ...DEAL, foo: { kind: 'number' } },
        design: changed('stage', { indexed: false }, { ...DEAL, code: { kind: 'text', required: true } }),
        table: {},
        problems: [
          "deal.code is new and required without a default, which SQLite can only add by making the empty table deal again, but that would drop what this version leaves in place (column deal.foo (not in this version's definitions); index on deal.stage (not in this version's definitions)): add it with rmsgen migrate",
        ],
        leftInPlace: [`${LEFT}column deal.foo (not in this version's definitions)`, `${LEFT}index on deal.stage (not in this version's definitions)`],
        asks: ROWS,
      },
      {
        name: 'additive on PostgreSQL: the same column is simply added, the rest left in place',
        mode: 'additive',
        dialect: 'postgres',
        recorded: { ...DEAL, foo: { kind: 'number' } },
        design: { ...DEAL, code: { kind: 'text', required: true } },
        table: {},
        steps: ['add column deal.code'],
        leftInPlace: [`${LEFT}column deal.foo (not in this version's definitions)`],
        asks: ROWS,
        snapshot: snapshotOf(model({ ...DEAL, foo: { kind: 'number' }, code: { kind: 'text', required: true } })),
      },
    ],
  },
  {
    title: 'kind changes',
    cases: [
      {
        name: 'full: a column whose type changed while it holds values is refused',
        mode: 'full',
        recorded: DEAL,
        design: changed('amount', { kind: 'text' }),
        table: { rows: 3, values: { amount: { '40': 2 } } },
        problems: [
          'deal.amount changed kind from money to text, but 2 row(s) hold a value in it: keep the kind, or add a new field, copy the values over, and remove this one when it is empty',
        ],
        asks: [...ROWS, ['filled deal.amount']],
      },
      {
        name: 'full: a kind change on the same column type is refused while the column holds values',
        mode: 'full',
        recorded: DEAL,
        design: changed('amount', { kind: 'number' }),
        table: { rows: 3, values: { amount: { '40': 1 } } },
        problems: [
          'deal.amount changed kind from money to number, but 1 row(s) hold a value in it: keep the kind, or add a new field, copy the values over, and remove this one when it is empty',
        ],
        asks: [...ROWS, ['filled deal.amount']],
      },
      {
        name: 'full: a ref whose target changed is refused while it holds values',
        mode: 'full',
        recorded: DEAL,
        design: changed('party', { target: 'invoice' }),
        table: { rows: 3, values: { party: { P1: 3 } } },
        problems: [
          'deal.party changed kind from a ref to party to a ref to invoice, but 3 row(s) hold a value in it: keep the kind, or add a new field, copy the values over, and remove this one when it is empty',
        ],
        asks: [...ROWS, ['filled deal.party']],
      },
      {
        name: 'full: an empty column of another type is replaced, and its index made again',
        mode: 'full',
        recorded: DEAL,
        design: changed('party', { kind: 'text', target: undefined }),
        table: { rows: 3 },
        steps: ['replace column deal.party by a text column (dropping rms_idx_deal_party)', 'add index rms_idx_deal_party on deal (party)'],
        asks: [...ROWS, ['filled deal.party']],
      },
      {
        name: 'full: an empty required column of another type is refused while the table has rows',
        mode: 'full',
        recorded: DEAL,
        design: changed('amount', { kind: 'text', required: true }),
        table: { rows: 3 },
        problems: ['deal.amount changed kind and is required, but 3 row(s) have no value for it: fill them in first'],
        asks: [...ROWS, ['filled deal.amount']],
      },
      {
        name: 'full: an empty column of another kind on the same type only changes the snapshot',
        mode: 'full',
        recorded: DEAL,
        design: changed('amount', { kind: 'number' }),
        table: { rows: 3 },
        asks: [...ROWS, ['filled deal.amount']],
      },
      {
        name: 'full: text that becomes longtext keeps its values',
        mode: 'full',
        recorded: DEAL,
        design: changed('reason', { kind: 'longtext' }),
        table: { rows: 3, values: { reason: { price: 1 } } },
        asks: [...ROWS, ['filled deal.reason']],
      },
      {
        name: 'full: text that becomes a select is refused while records hold other values',
        mode: 'full',
        recorded: DEAL,
        design: changed('reason', { kind: 'select', options: ['price', 'timing'] }),
        table: { rows: 3, values: { reason: { price: 1, weather: 2 } } },
        problems: ['deal.reason became a select, but some records hold other values: weather (2 row(s)): make them options, or change those records first'],
        asks: [...ROWS, ['filled deal.reason'], ['values of deal.reason outside price, timing']],
      },
      {
        name: 'full: text that becomes a select whose options cover the values',
        mode: 'full',
        recorded: DEAL,
        design: changed('reason', { kind: 'select', options: ['price', 'timing'] }),
        table: { rows: 3, values: { reason: { price: 1 } } },
        asks: [...ROWS, ['filled deal.reason'], ['values of deal.reason outside price, timing']],
      },
      ...[{}, { rows: 3, values: { amount: { '40': 1 } } }].map((table) => ({
        name: `additive: a column of another type is refused, ${table.rows ? 'filled' : 'empty'} or not, without counting`,
        mode: 'additive' as const,
        recorded: DEAL,
        design: changed('amount', { kind: 'text' }),
        table,
        problems: [
          "deal.amount is a money in the database, but a text in this version's definitions: serve only adds tables, columns and indexes; change the kind with rmsgen migrate, or serve the release the database was migrated for",
        ],
      })),
      {
        name: 'additive: another kind on the same type is refused',
        mode: 'additive',
        recorded: DEAL,
        design: changed('amount', { kind: 'number' }),
        table: {},
        problems: [
          "deal.amount is a money in the database, but a number in this version's definitions: serve only adds tables, columns and indexes; change the kind with rmsgen migrate, or serve the release the database was migrated for",
        ],
      },
      {
        name: 'additive: a ref to another model is refused',
        mode: 'additive',
        recorded: DEAL,
        design: changed('party', { target: 'invoice' }),
        table: {},
        problems: [
          "deal.party is a ref to party in the database, but a ref to invoice in this version's definitions: serve only adds tables, columns and indexes; change the kind with rmsgen migrate, or serve the release the database was migrated for",
        ],
      },
      {
        name: 'additive: text read as a select is refused while records hold other values',
        mode: 'additive',
        recorded: DEAL,
        design: changed('reason', { kind: 'select', options: ['price'] }),
        table: { rows: 3, values: { reason: { weather: 1 } } },
        problems: ['deal.reason became a select, but some records hold other values: weather (1 row(s)): make them options, or change those records first'],
        asks: [...ROWS, ['filled deal.reason'], ['values of deal.reason outside price']],
      },
      {
        name: 'additive: text read as a select whose options cover the values keeps the recorded kind',
        mode: 'additive',
        recorded: DEAL,
        design: changed('reason', { kind: 'select', options: ['price'] }),
        table: { rows: 3, values: { reason: { price: 3 } } },
        asks: [...ROWS, ['filled deal.reason'], ['values of deal.reason outside price']],
        snapshot: snapshotOf(model(DEAL)),
      },
      {
        name: 'additive: a select read as text keeps the recorded select, without counting',
        mode: 'additive',
        recorded: DEAL,
        design: changed('stage', { kind: 'text', options: undefined }),
        table: { rows: 3, values: { stage: { new: 3 } } },
        asks: [...ROWS, ['filled deal.stage']],
        snapshot: snapshotOf(model(DEAL)),
      },
    ],
  },
  {
    title: 'select options',
    cases: [
      {
        name: 'full: an option removed while rows use it is refused',
        mode: 'full',
        recorded: DEAL,
        design: changed('stage', { options: ['new', 'lost'] }),
        table: { rows: 3, values: { stage: { new: 2, won: 1 } } },
        problems: ['deal.stage: option(s) won (used by 1 row(s)) were removed: keep them, or move those records to another option first'],
        asks: [...ROWS, ['uses of deal.stage as won']],
      },
      {
        name: 'full: an option no row uses is removed',
        mode: 'full',
        recorded: DEAL,
        design: changed('stage', { options: ['new', 'lost'] }),
        table: { rows: 3, values: { stage: { new: 3 } } },
        asks: [...ROWS, ['uses of deal.stage as won']],
      },
      {
        name: 'full: options removed from an empty table need no count',
        mode: 'full',
        recorded: DEAL,
        design: changed('stage', { options: ['new', 'lost'] }),
        table: {},
        asks: ROWS,
      },
      {
        name: 'additive: a removed option is left in place, uncounted, and stays recorded',
        mode: 'additive',
        recorded: DEAL,
        design: changed('stage', { options: ['new', 'lost'] }),
        table: { rows: 3, values: { stage: { won: 3 } } },
        leftInPlace: [`${LEFT}option won of deal.stage (not in this version's definitions)`],
        snapshot: snapshotOf(model(DEAL)),
      },
      {
        name: 'additive: an added option is recorded after the recorded ones',
        mode: 'additive',
        recorded: DEAL,
        design: changed('stage', { options: ['parked', 'new', 'lost'] }),
        table: {},
        leftInPlace: [`${LEFT}option won of deal.stage (not in this version's definitions)`],
        snapshot: snapshotOf(model(changed('stage', { options: ['new', 'won', 'lost', 'parked'] }))),
      },
    ],
  },
  {
    title: 'required and optional',
    cases: [
      ...onBoth({
        name: 'full: a field made required while rows have no value is refused',
        mode: 'full',
        recorded: DEAL,
        design: changed('reason', { required: true }),
        table: { rows: 3, values: { reason: { price: 2 } } },
        problems: ['deal.reason became required, but 1 row(s) have no value: fill them in first, then migrate again'],
        asks: [...ROWS, ['filled deal.reason']],
      }),
      {
        name: 'full on SQLite: a field made required that every row fills rebuilds the table',
        mode: 'full',
        recorded: DEAL,
        design: changed('reason', { required: true }),
        table: { rows: 3, values: { reason: { price: 3 } } },
        steps: [`rebuild table deal keeping id, title, stage, amount, reason, party with ${ALL_INDEXES}`],
        asks: [...ROWS, ['filled deal.reason']],
      },
      {
        name: 'full on PostgreSQL: a field made required that every row fills gets NOT NULL',
        mode: 'full',
        dialect: 'postgres',
        recorded: DEAL,
        design: changed('reason', { required: true }),
        table: { rows: 3, values: { reason: { price: 3 } } },
        steps: ['set not null on deal.reason'],
        asks: [...ROWS, ['filled deal.reason']],
      },
      {
        name: 'full on SQLite: a field made optional rebuilds the table without counting values',
        mode: 'full',
        recorded: DEAL,
        design: changed('title', { required: false }),
        table: { rows: 3 },
        steps: [`rebuild table deal keeping id, title, stage, amount, reason, party with ${ALL_INDEXES}`],
        asks: ROWS,
      },
      {
        name: 'full on PostgreSQL: a field made optional drops NOT NULL',
        mode: 'full',
        dialect: 'postgres',
        recorded: DEAL,
        design: changed('title', { required: false }),
        table: { rows: 3 },
        steps: ['drop not null on deal.title'],
        asks: ROWS,
      },
      ...onBoth({
        name: 'full: a field made optional on an empty table makes it again',
        mode: 'full',
        recorded: DEAL,
        design: changed('title', { required: false }),
        table: {},
        steps: [`recreate table deal with ${ALL_INDEXES}`],
        asks: ROWS,
      }),
      {
        name: 'full on SQLite: a rebuild copies the existing columns, not a replaced or new one',
        mode: 'full',
        recorded: DEAL,
        design: { ...changed('title', { required: false }, changed('party', { kind: 'text', target: undefined })), score: { kind: 'number' } },
        table: { rows: 3 },
        steps: [`rebuild table deal keeping id, title, stage, amount, reason with ${ALL_INDEXES}`],
        asks: [...ROWS, ['filled deal.party']],
      },
      ...onBoth({
        name: 'additive: a field the database requires and this version makes optional is refused',
        mode: 'additive',
        recorded: DEAL,
        design: changed('title', { required: false }),
        table: { rows: 3 },
        problems: [
          "deal.title is required in the database, but optional in this version's definitions: serve does not change constraints; make it optional with rmsgen migrate",
        ],
      }),
      ...onBoth({
        name: 'additive: a field this version makes required stays optional, uncounted',
        mode: 'additive',
        recorded: DEAL,
        design: changed('reason', { required: true }),
        table: { rows: 3 },
        leftInPlace: [`${LEFT}column deal.reason stays optional (required in this version's definitions)`],
        snapshot: snapshotOf(model(DEAL)),
      }),
    ],
  },
  {
    title: 'removed columns',
    cases: [
      {
        name: 'full: an empty column is dropped, with its index',
        mode: 'full',
        recorded: DEAL,
        design: without('party'),
        table: { rows: 3 },
        steps: ['drop column deal.party (dropping rms_idx_deal_party)'],
        asks: [...ROWS, ['filled deal.party']],
      },
      {
        name: 'full: columns holding values are refused, all counted in one round',
        mode: 'full',
        recorded: DEAL,
        design: without('amount', without('reason')),
        table: { rows: 3, values: { reason: { price: 1 }, amount: { '7': 2 } } },
        problems: [
          'deal.amount was removed, but 2 row(s) hold a value in it: put the field back, or empty it in every record first and migrate again',
          'deal.reason was removed, but 1 row(s) hold a value in it: put the field back, or empty it in every record first and migrate again',
        ],
        asks: [...ROWS, ['filled deal.amount', 'filled deal.reason']],
      },
      {
        name: 'full: a column removed from an empty table makes it again',
        mode: 'full',
        recorded: DEAL,
        design: without('reason'),
        table: {},
        steps: ['recreate table deal with rms_idx_deal_stage, rms_idx_deal_party'],
        asks: ROWS,
      },
      {
        name: 'full: a column no migration recorded is dropped when empty',
        mode: 'full',
        recorded: DEAL,
        design: DEAL,
        table: { columns: ['id', 'title', 'stage', 'amount', 'reason', 'party', 'extra'], rows: 1 },
        steps: ['drop column deal.extra'],
        asks: [...ROWS, ['filled deal.extra']],
      },
      {
        name: 'additive: a removed column is left in place, uncounted, and stays recorded',
        mode: 'additive',
        recorded: DEAL,
        design: without('reason'),
        table: { rows: 3, values: { reason: { price: 3 } } },
        leftInPlace: [`${LEFT}column deal.reason (not in this version's definitions)`],
        snapshot: snapshotOf(model(DEAL)),
      },
      {
        name: 'additive: a removed required column with a default is left in place',
        mode: 'additive',
        recorded: DEAL,
        design: without('stage'),
        table: {},
        leftInPlace: [`${LEFT}column deal.stage (not in this version's definitions)`],
        snapshot: snapshotOf(model(DEAL)),
      },
      {
        name: 'additive: a removed required column without a default is refused (this version could not create records)',
        mode: 'additive',
        recorded: DEAL,
        design: without('title'),
        table: {},
        problems: [
          "deal.title is required in the database and has no default, but is not in this version's definitions, so this version could not create deal records: serve the release that added it, or remove it with rmsgen migrate",
        ],
      },
    ],
  },
  {
    title: 'indexes',
    cases: [
      ...(['full', 'additive'] as const).map((mode) => ({
        name: `an index on an existing column is created, without counting (${mode})`,
        mode,
        recorded: DEAL,
        design: changed('amount', { indexed: true }),
        table: { rows: 3 },
        steps: ['add index rms_idx_deal_amount on deal (amount)'],
        // Additive runs record what they add after what was recorded.
        ...(mode === 'additive' ? { snapshot: withIndexes(changed('amount', { indexed: true }), ['stage', 'party', 'amount']) } : {}),
      })),
      {
        name: 'full: an index no longer designed is dropped',
        mode: 'full',
        recorded: DEAL,
        design: changed('stage', { indexed: false }),
        table: { rows: 3 },
        steps: ['drop index rms_idx_deal_stage'],
      },
      {
        name: 'additive: an index no longer designed is left in place and stays recorded',
        mode: 'additive',
        recorded: DEAL,
        design: changed('stage', { indexed: false }),
        table: { rows: 3 },
        leftInPlace: [`${LEFT}index on deal.stage (not in this version's definitions)`],
        snapshot: snapshotOf(model(DEAL)),
      },
      ...(['full', 'additive'] as const).map((mode) => ({
        name: `a recorded index whose column the database lacks comes back with the column (${mode})`,
        mode,
        recorded: DEAL,
        design: DEAL,
        table: { columns: ['id', 'title', 'stage', 'amount', 'reason'], rows: 3 },
        steps: ['add column deal.party', 'add index rms_idx_deal_party on deal (party)'],
        asks: mode === 'full' ? ROWS : [],
      })),
      {
        name: 'additive: an index added with a column is recorded with it',
        mode: 'additive',
        recorded: DEAL,
        design: { ...DEAL, score: { kind: 'number', indexed: true } },
        table: { rows: 3 },
        steps: ['add column deal.score', 'add index rms_idx_deal_score on deal (score)'],
      },
    ],
  },
])('the planner: $title', ({ cases }) => {
  it.each(cases.map((c) => [`${c.name}${c.dialect === 'postgres' ? ' [postgres]' : ''}`, c] as const))('%s', (_, c) => check(c));
});

describe('the planner’s questions', () => {
  it('come back unanswered until inspection answers them, and the plan is only given once complete', () => {
    const recorded = new Map([['deal', snapshotOf(model(DEAL))]]);
    const design = { models: { deal: model(without('reason')) } };
    const columns = ['id', ...Object.keys(DEAL)];
    const inspected = (table: InspectedTable): InspectedDatabase => ({ dialect: 'sqlite', tables: new Map([['deal', table]]) });
    expect(planMigration(design, recorded, inspected(inspectedTable(columns)), 'full')).toEqual({
      kind: 'unanswered',
      questions: [{ kind: 'rows', table: 'deal' }],
    });
    const counted = { ...inspectedTable(columns), rows: 4 };
    expect(planMigration(design, recorded, inspected(counted), 'full')).toEqual({
      kind: 'unanswered',
      questions: [{ kind: 'filled', table: 'deal', column: 'reason' }],
    });
    const outcome = planMigration(design, recorded, inspected({ ...counted, filled: new Map([['reason', 0]]) }), 'full');
    expect(outcome.kind === 'planned' && outcome.plan.steps.map(describeStep)).toEqual(['drop column deal.reason']);
  });
});
