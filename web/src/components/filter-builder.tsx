/**
 * The list's filter builder: rows of field, operator, value, combined with AND (SPEC 4.5). Only
 * the operators that suit a field's kind are offered; "is empty" / "is not empty" are `is_null`.
 */
import { useState } from 'preact/hooks';
import { parseDraft } from '../lib/form.ts';
import { decimalInputText, inDeclaredOrder, localDateTimeText, moneyInputText, optionLabel } from '../lib/format.ts';
import type { FieldInfo, FieldKind, FilterCondition, FilterOperator } from '../lib/types.ts';
import { RefPicker } from './ref-picker.tsx';

/** What people pick; `not_null` is `is_null` with `false`. */
type UiOp = Exclude<FilterOperator, 'is_null'> | 'is_null' | 'not_null';

const OP_LABELS: Record<UiOp, string> = {
  contains: 'contains',
  eq: 'is',
  ne: 'is not',
  in: 'is any of',
  gt: 'greater than',
  gte: 'at least',
  lt: 'less than',
  lte: 'at most',
  is_null: 'is empty',
  not_null: 'is not empty',
};

const DATE_LABELS: Partial<Record<UiOp, string>> = { gt: 'after', gte: 'on or after', lt: 'before', lte: 'on or before' };
/** A multiselect holds several options: `contains` is one of them, `in` any of several. */
const MULTISELECT_LABELS: Partial<Record<UiOp, string>> = { contains: 'has', in: 'has any of' };

export const OPS_BY_KIND: Record<FieldKind, readonly UiOp[]> = {
  text: ['contains', 'eq', 'ne', 'is_null', 'not_null'],
  longtext: ['contains', 'eq', 'ne', 'is_null', 'not_null'],
  number: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'is_null', 'not_null'],
  money: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'is_null', 'not_null'],
  date: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'is_null', 'not_null'],
  bool: ['eq', 'is_null', 'not_null'],
  select: ['eq', 'ne', 'in', 'is_null', 'not_null'],
  ref: ['eq', 'ne', 'is_null', 'not_null'],
  decimal: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'is_null', 'not_null'],
  datetime: ['gte', 'lt', 'gt', 'lte', 'is_null', 'not_null'],
  email: ['contains', 'eq', 'ne', 'is_null', 'not_null'],
  url: ['contains', 'eq', 'ne', 'is_null', 'not_null'],
  phone: ['contains', 'eq', 'ne', 'is_null', 'not_null'],
  multiselect: ['contains', 'in', 'is_null', 'not_null'],
  file: ['is_null', 'not_null'],
};

interface Row {
  readonly key: number;
  readonly field: string;
  readonly op: UiOp;
  /** Text of the value input; for `in`, the chosen options; for bool, "true"/"false". */
  readonly value: string | readonly string[];
}

let nextKey = 0;

export function opLabel(field: FieldInfo | undefined, op: UiOp): string {
  if (field?.kind === 'date' || field?.kind === 'datetime') return DATE_LABELS[op] ?? OP_LABELS[op];
  if (field?.kind === 'multiselect') return MULTISELECT_LABELS[op] ?? OP_LABELS[op];
  return OP_LABELS[op];
}

function rowFromFilter(fields: readonly FieldInfo[], filter: FilterCondition): Row | undefined {
  const field = fields.find((candidate) => candidate.name === filter.field);
  if (!field) return undefined;
  const op: UiOp = filter.op === 'is_null' ? (filter.value === false ? 'not_null' : 'is_null') : filter.op;
  let value: Row['value'] = '';
  if (Array.isArray(filter.value)) value = filter.value.map(String);
  else if (field.kind === 'money' && typeof filter.value === 'number') value = moneyInputText(filter.value, field.currency);
  else if (field.kind === 'decimal' && typeof filter.value === 'number') value = decimalInputText(filter.value);
  else if (field.kind === 'datetime' && typeof filter.value === 'string') value = localDateTimeText(filter.value);
  else if (filter.value !== undefined && filter.value !== null) value = String(filter.value);
  return { key: ++nextKey, field: field.name, op, value };
}

function emptyRow(fields: readonly FieldInfo[]): Row {
  const field = fields[0]!;
  return { key: ++nextKey, field: field.name, op: OPS_BY_KIND[field.kind][0]!, value: field.kind === 'bool' ? 'true' : '' };
}

/** A row as a SPEC filter, or the problem with it. */
function rowToFilter(field: FieldInfo, row: Row): FilterCondition | string {
  if (row.op === 'is_null') return { field: field.name, op: 'is_null', value: true };
  if (row.op === 'not_null') return { field: field.name, op: 'is_null', value: false };
  if (row.op === 'in') {
    const values = Array.isArray(row.value) ? row.value : [];
    // In the declared order (a workflow's order), not the order they were ticked in.
    return values.length === 0 ? `Pick at least one ${field.label.toLowerCase()}` : { field: field.name, op: 'in', value: inDeclaredOrder(field, values) };
  }
  if (field.kind === 'bool') return { field: field.name, op: row.op, value: row.value === 'true' };
  const text = typeof row.value === 'string' ? row.value : '';
  if (text.trim() === '') return `Enter a value for ${field.label}`;
  if (row.op === 'contains') return { field: field.name, op: 'contains', value: text.trim() };
  const parsed = parseDraft(field, text);
  if (!parsed.ok) return parsed.error;
  return { field: field.name, op: row.op, value: parsed.value };
}

export function FilterBuilder({ model, fields, filters, onApply }: { model: string; fields: readonly FieldInfo[]; filters: readonly FilterCondition[]; onApply: (filters: FilterCondition[]) => void }) {
  const [rows, setRows] = useState<Row[]>(() => {
    const initial = filters.map((filter) => rowFromFilter(fields, filter)).filter((row): row is Row => row !== undefined);
    return initial.length > 0 ? initial : [emptyRow(fields)];
  });
  const [problem, setProblem] = useState<string | null>(null);

  function update(key: number, change: Partial<Row>) {
    setRows((current) => current.map((row) => (row.key === key ? { ...row, ...change } : row)));
  }

  function apply(event: Event) {
    event.preventDefault();
    const result: FilterCondition[] = [];
    for (const row of rows) {
      const field = fields.find((candidate) => candidate.name === row.field);
      if (!field) continue;
      const filter = rowToFilter(field, row);
      if (typeof filter === 'string') {
        setProblem(filter);
        return;
      }
      result.push(filter);
    }
    setProblem(null);
    onApply(result.slice(0, 50));
  }

  return (
    <form class="filters" onSubmit={apply} noValidate aria-label="Filters">
      {rows.map((row, index) => {
        const field = fields.find((candidate) => candidate.name === row.field) ?? fields[0]!;
        const ops = OPS_BY_KIND[field.kind];
        const base = `filter-${row.key}`;
        return (
          <fieldset class="filter-row" key={row.key}>
            <legend class="sr-only">{`Condition ${index + 1}`}</legend>
            <span class="filter-join" aria-hidden="true">
              {index === 0 ? 'Where' : 'and'}
            </span>
            <label class="sr-only" for={`${base}-field`}>
              Field
            </label>
            <select
              id={`${base}-field`}
              value={row.field}
              onChange={(event) => {
                const next = fields.find((candidate) => candidate.name === event.currentTarget.value) ?? field;
                update(row.key, { field: next.name, op: OPS_BY_KIND[next.kind][0]!, value: next.kind === 'bool' ? 'true' : '' });
              }}
            >
              {fields.map((candidate) => (
                <option value={candidate.name} key={candidate.name}>
                  {candidate.label}
                </option>
              ))}
            </select>
            <label class="sr-only" for={`${base}-op`}>
              Condition
            </label>
            <select
              id={`${base}-op`}
              value={row.op}
              onChange={(event) => {
                const op = event.currentTarget.value as UiOp;
                update(row.key, { op, value: op === 'in' ? [] : Array.isArray(row.value) ? '' : row.value });
              }}
            >
              {ops.map((op) => (
                <option value={op} key={op}>
                  {opLabel(field, op)}
                </option>
              ))}
            </select>
            <FilterValue model={model} field={field} row={row} id={`${base}-value`} onChange={(value) => update(row.key, { value })} />
            <button
              type="button"
              class="btn btn-icon"
              aria-label={`Remove condition ${index + 1}`}
              title="Remove condition"
              onClick={() => setRows((current) => (current.length === 1 ? [emptyRow(fields)] : current.filter((other) => other.key !== row.key)))}
            >
              ×
            </button>
          </fieldset>
        );
      })}
      {problem && (
        <p class="field-error" role="alert">
          {problem}
        </p>
      )}
      <div class="filter-actions">
        <button type="button" class="btn btn-link" onClick={() => setRows((current) => [...current, emptyRow(fields)])} disabled={rows.length >= 50}>
          + Add condition
        </button>
        <span class="spacer" />
        <button
          type="button"
          class="btn"
          onClick={() => {
            setRows([emptyRow(fields)]);
            setProblem(null);
            onApply([]);
          }}
        >
          Clear
        </button>
        <button type="submit" class="btn btn-primary">
          Apply filters
        </button>
      </div>
    </form>
  );
}

function FilterValue({ model, field, row, id, onChange }: { model: string; field: FieldInfo; row: Row; id: string; onChange: (value: Row['value']) => void }) {
  if (row.op === 'is_null' || row.op === 'not_null') return <span class="filter-value filter-value-none" />;
  const text = typeof row.value === 'string' ? row.value : '';
  const label = (
    <label class="sr-only" for={id}>
      Value
    </label>
  );
  if (row.op === 'in') {
    const chosen = Array.isArray(row.value) ? row.value : [];
    return (
      <fieldset class="filter-value filter-options">
        <legend class="sr-only">{`${field.label} ${opLabel(field, 'in')}`}</legend>
        {(field.options ?? []).map((option) => (
          <label class="check" key={option}>
            <input
              type="checkbox"
              checked={chosen.includes(option)}
              onChange={(event) => onChange(event.currentTarget.checked ? [...chosen, option] : chosen.filter((other) => other !== option))}
            />
            {optionLabel(option)}
          </label>
        ))}
      </fieldset>
    );
  }
  switch (field.kind) {
    case 'bool':
      return (
        <span class="filter-value">
          {label}
          <select id={id} value={text || 'true'} onChange={(event) => onChange(event.currentTarget.value)}>
            <option value="true">Yes</option>
            <option value="false">No</option>
          </select>
        </span>
      );
    case 'select':
    case 'multiselect':
      return (
        <span class="filter-value">
          {label}
          <select id={id} value={text} onChange={(event) => onChange(event.currentTarget.value)}>
            <option value="">Choose…</option>
            {(field.options ?? []).map((option) => (
              <option value={option} key={option}>
                {optionLabel(option)}
              </option>
            ))}
          </select>
        </span>
      );
    case 'date':
    case 'datetime':
      return (
        <span class="filter-value">
          {label}
          <input id={id} type={field.kind === 'date' ? 'date' : 'datetime-local'} value={text} onInput={(event) => onChange(event.currentTarget.value)} />
        </span>
      );
    case 'ref':
      return (
        <span class="filter-value">
          <RefPicker id={id} name={`${model}-${field.name}`} target={field.target ?? ''} value={text} required={false} aria-label="Value" onChange={(value) => onChange(value)} />
        </span>
      );
    default:
      return (
        <span class="filter-value">
          {label}
          <input
            id={id}
            type="text"
            inputMode={field.kind === 'money' || field.kind === 'decimal' ? 'decimal' : field.kind === 'number' ? 'numeric' : undefined}
            placeholder={field.kind === 'money' ? moneyInputText(0, field.currency) : ''}
            value={text}
            onInput={(event) => onChange(event.currentTarget.value)}
          />
        </span>
      );
  }
}
