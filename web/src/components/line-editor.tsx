/**
 * A line list in a form (an order's items): one row of inputs per line, with its computed fields
 * worked out while people type, its errors beside each field, and buttons to move a line up or
 * down, remove it and add one. The buttons are plain buttons, so the keyboard does everything; focus
 * follows the line moved, and goes to the next line (or Add) after a removal and to a new line's
 * first input.
 */
import { useEffect, useState } from 'preact/hooks';
import { isEditable, type Draft } from '../lib/form.ts';
import { blankLine, moveLine, type LineDraft, type LineErrors } from '../lib/lines.ts';
import { plural } from '../lib/format.ts';
import { useTitles } from '../lib/titles.ts';
import type { FieldInfo, LineListInfo, ModelInfo } from '../lib/types.ts';
import { FieldInput } from './field-input.tsx';
import { FieldValue } from './value.tsx';

export function LineEditor(props: {
  model: ModelInfo;
  list: LineListInfo;
  lines: readonly LineDraft[];
  /** The lines as they would be saved, computed fields worked out (same order); undefined while that is not known. */
  computed: readonly Readonly<Record<string, unknown>>[] | undefined;
  /** The stored lines (an edit), for the fields the person reads but does not write. */
  stored: readonly Readonly<Record<string, unknown>>[];
  errors: Readonly<Record<string, LineErrors>>;
  listError: string | undefined;
  onChange: (lines: LineDraft[], changedLine?: string, changedField?: string) => void;
}) {
  const { model, list, lines } = props;
  const [focus, setFocus] = useState<string | null>(null);
  useEffect(() => {
    if (focus === null) return;
    document.getElementById(focus)?.focus();
    setFocus(null);
  }, [focus]);
  const base = `lines-${model.name}-${list.name}`;
  const shown = list.fields;
  const refs = [...props.stored, ...(props.computed ?? [])].flatMap((line) =>
    shown.filter((field) => field.kind === 'ref' && field.target && typeof line[field.name] === 'string').map((field) => [field.target!, line[field.name] as string] as const),
  );
  const title = useTitles(refs);
  const inputId = (line: LineDraft, field: FieldInfo) => `field-${model.name}-${list.name}-${line.key}-${field.name}`;

  function move(index: number, by: number, button: 'up' | 'down') {
    const moved = moveLine(lines, index, by);
    props.onChange(moved);
    const line = lines[index]!;
    // Keep focus on the button pressed, on the line in its new place (or its other button at an end).
    const atEnd = (button === 'up' && index + by === 0) || (button === 'down' && index + by === lines.length - 1);
    setFocus(`${base}-${line.key}-${atEnd ? (button === 'up' ? 'down' : 'up') : button}`);
  }

  function remove(index: number) {
    const next = lines[index + 1] ?? lines[index - 1];
    props.onChange(lines.filter((_, other) => other !== index));
    setFocus(next ? `${base}-${next.key}-remove` : `${base}-add`);
  }

  function add() {
    const line = blankLine(list);
    props.onChange([...lines, line]);
    const first = shown.find(isEditable);
    setFocus(first ? inputId(line, first) : `${base}-${line.key}-remove`);
  }

  const headingId = `${base}-heading`;
  return (
    <section class="line-editor" aria-labelledby={headingId}>
      <div class="line-editor-head">
        <h2 id={headingId}>
          {list.label} <span class="count">{lines.length}</span>
        </h2>
        <span class="muted small">{list.min > 0 ? `At least ${plural(list.min, 'line')}; at most ${list.max.toLocaleString('en-US')}.` : `At most ${plural(list.max, 'line')}.`}</span>
      </div>
      {list.description && <p class="help">{list.description}</p>}
      {props.listError && (
        <p class="field-error list-error" id={`${base}-error`} role="alert">
          {props.listError}
        </p>
      )}
      <ol class="line-rows">
        {lines.map((line, index) => {
          const errors = props.errors[line.key];
          const stored = line.id === undefined ? undefined : props.stored.find((candidate) => candidate.id === line.id);
          const live = props.computed?.[index];
          const number = index + 1;
          return (
            <li class={errors ? 'line-row has-error' : 'line-row'} key={line.key} aria-label={`Line ${number}`}>
              <div class="line-row-head">
                <span class="line-no">{`Line ${number}`}</span>
                <span class="spacer" />
                <button type="button" class="btn btn-small" id={`${base}-${line.key}-up`} disabled={index === 0} aria-label={`Move line ${number} up`} onClick={() => move(index, -1, 'up')}>
                  <span aria-hidden="true">↑</span> Up
                </button>
                <button
                  type="button"
                  class="btn btn-small"
                  id={`${base}-${line.key}-down`}
                  disabled={index === lines.length - 1}
                  aria-label={`Move line ${number} down`}
                  onClick={() => move(index, 1, 'down')}
                >
                  <span aria-hidden="true">↓</span> Down
                </button>
                <button type="button" class="btn btn-small btn-danger-quiet" id={`${base}-${line.key}-remove`} aria-label={`Remove line ${number}`} onClick={() => remove(index)}>
                  Remove
                </button>
              </div>
              {errors?.line && (
                <p class="field-error" role="alert">
                  {errors.line}
                </p>
              )}
              <div class="line-fields">
                {shown.map((field) =>
                  isEditable(field) ? (
                    <FieldInput
                      key={field.name}
                      model={model.name}
                      id={inputId(line, field)}
                      field={field}
                      label={
                        <>
                          {field.label}
                          <span class="sr-only">{`, line ${number}`}</span>
                        </>
                      }
                      value={line.drafts[field.name] ?? ''}
                      error={errors?.fields[field.name]}
                      onChange={(value: Draft) => props.onChange(lines.map((other) => (other.key === line.key ? { ...other, drafts: { ...other.drafts, [field.name]: value } } : other)), line.key, field.name)}
                    />
                  ) : (
                    <div class={`field field-readonly field-${field.kind}${errors?.fields[field.name] ? ' has-error' : ''}`} key={field.name}>
                      <span class="label" id={`${inputId(line, field)}-label`}>
                        {field.label}
                        <span class="sr-only">{`, line ${number}`}</span>
                      </span>
                      <output class="readonly-value" id={inputId(line, field)} aria-labelledby={`${inputId(line, field)}-label`}>
                        <FieldValue field={field} value={field.computed ? (live?.[field.name] ?? stored?.[field.name]) : stored?.[field.name]} title={title} full />
                      </output>
                      {errors?.fields[field.name] && <p class="field-error">{errors.fields[field.name]}</p>}
                    </div>
                  ),
                )}
              </div>
            </li>
          );
        })}
      </ol>
      {lines.length === 0 && <p class="muted small">{`No ${list.label.toLowerCase()} yet.`}</p>}
      <button type="button" class="btn" id={`${base}-add`} disabled={lines.length >= list.max} onClick={add}>
        {`+ Add a line to ${list.label.toLowerCase()}`}
      </button>
    </section>
  );
}
