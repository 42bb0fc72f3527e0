/**
 * One form field: its label, the input suited to its kind, its help text and its error. Inputs
 * carry the field's limits (`length` as maxlength, a date's `min`/`max`); the checks themselves
 * are lib/form.ts's, in the server's words.
 */
import type { ComponentChildren } from 'preact';
import type { Draft } from '../lib/form.ts';
import { moneyInputText, optionLabel, readerTimeZone } from '../lib/format.ts';
import { numberMarks } from '../lib/locale.ts';
import type { FieldInfo } from '../lib/types.ts';
import { filesOf } from '../lib/files.ts';
import { FileFieldInput } from './file-field.tsx';
import { RefPicker } from './ref-picker.tsx';

export function FieldInput({
  model,
  field,
  value,
  error,
  onChange,
  id: givenId,
  label: givenLabel,
}: {
  model: string;
  field: FieldInfo;
  value: Draft;
  error?: string | undefined;
  onChange: (value: Draft) => void;
  /** The input's id, when `field-<model>-<field>` is not unique on the page (a line's field). */
  id?: string;
  /** What the label says, when not the field's label (`Quantity, line 2` for a screen reader). */
  label?: ComponentChildren;
}) {
  const id = givenId ?? `field-${model}-${field.name}`;
  const labelText = givenLabel ?? field.label;
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const describedBy = [field.description ? helpId : '', error ? errorId : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    name: field.name,
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-describedby': describedBy,
    'aria-required': field.required ? ('true' as const) : undefined,
  };
  const text = typeof value === 'string' ? value : '';

  let input;
  switch (field.kind) {
    case 'longtext':
      input = <textarea {...common} rows={4} maxLength={field.length} value={text} onInput={(event) => onChange(event.currentTarget.value)} />;
      break;
    case 'number':
      input = <input {...common} type="text" inputMode="numeric" autoComplete="off" value={text} onInput={(event) => onChange(event.currentTarget.value)} />;
      break;
    case 'decimal':
      input = (
        <input
          {...common}
          class="input-money"
          type="text"
          inputMode="decimal"
          autoComplete="off"
          placeholder={(0).toFixed(field.scale ?? 2).replace('.', numberMarks().decimal)}
          value={text}
          onInput={(event) => onChange(event.currentTarget.value)}
        />
      );
      break;
    case 'datetime':
      input = <input {...common} type="datetime-local" step={/T\d{2}:\d{2}:\d{2}/.test(text) ? 1 : undefined} value={text} onInput={(event) => onChange(event.currentTarget.value)} />;
      break;
    case 'email':
    case 'url':
    case 'phone':
      input = (
        <input
          {...common}
          type={field.kind === 'phone' ? 'tel' : field.kind}
          inputMode={field.kind === 'phone' ? 'tel' : field.kind}
          autoComplete="off"
          maxLength={field.length}
          value={text}
          onInput={(event) => onChange(event.currentTarget.value)}
        />
      );
      break;
    case 'multiselect': {
      const chosen = Array.isArray(value) ? value : [];
      return (
        <fieldset class={`field field-multiselect${error ? ' has-error' : ''}`} aria-describedby={describedBy} aria-invalid={error ? 'true' : undefined} id={id}>
          <legend>
            {labelText}
            {field.required && (
              <span class="req" aria-hidden="true">
                {' '}
                *
              </span>
            )}
          </legend>
          <div class="options">
            {(field.options ?? []).map((option) => (
              <label class="check" key={option}>
                <input
                  type="checkbox"
                  name={field.name}
                  value={option}
                  checked={chosen.includes(option)}
                  onChange={(event) => onChange(event.currentTarget.checked ? [...chosen, option] : chosen.filter((other) => other !== option))}
                />
                {optionLabel(option)}
              </label>
            ))}
          </div>
          <FieldHelp field={field} helpId={helpId} error={error} errorId={errorId} />
        </fieldset>
      );
    }
    case 'file':
      return (
        <FileFieldInput
          id={id}
          field={field}
          files={filesOf(value)}
          onChange={(files) => onChange(files)}
          invalid={error !== undefined && error !== ''}
          describedBy={describedBy}
          label={
            <>
              {labelText}
              {field.required && (
                <span class="req" aria-hidden="true">
                  {' '}
                  *
                </span>
              )}
            </>
          }
          help={<FieldHelp field={field} helpId={helpId} error={error} errorId={errorId} />}
        />
      );
    case 'money':
      input = (
        <input {...common} class="input-money" type="text" inputMode="decimal" autoComplete="off" placeholder={moneyInputText(0, field.currency)} value={text} onInput={(event) => onChange(event.currentTarget.value)} />
      );
      break;
    case 'date':
      input = (
        <input
          {...common}
          type="date"
          min={typeof field.min === 'string' ? field.min : undefined}
          max={typeof field.max === 'string' ? field.max : undefined}
          value={text}
          onInput={(event) => onChange(event.currentTarget.value)}
        />
      );
      break;
    case 'bool':
      return (
        <div class={error ? 'field field-check has-error' : 'field field-check'}>
          <input {...common} type="checkbox" checked={value === true} onChange={(event) => onChange(event.currentTarget.checked)} />
          <label for={id}>{labelText}</label>
          <FieldHelp field={field} helpId={helpId} error={error} errorId={errorId} />
        </div>
      );
    case 'select':
      input = (
        <select {...common} value={text} onChange={(event) => onChange(event.currentTarget.value)}>
          <option value="">{field.required ? 'Choose…' : '—'}</option>
          {(field.options ?? []).map((option) => (
            <option value={option} key={option}>
              {optionLabel(option)}
            </option>
          ))}
        </select>
      );
      break;
    case 'ref':
      input = <RefPicker {...common} target={field.target ?? ''} value={text} required={field.required} onChange={onChange} />;
      break;
    default:
      input = (
        <input
          {...common}
          type="text"
          inputMode={field.name.includes('email') ? 'email' : undefined}
          autoComplete="off"
          maxLength={field.length}
          value={text}
          onInput={(event) => onChange(event.currentTarget.value)}
        />
      );
  }
  return (
    <div class={`field field-${field.kind}${error ? ' has-error' : ''}`}>
      <label for={id}>
        {labelText}
        {field.kind === 'money' && field.currency && <span class="unit">{` (${field.currency})`}</span>}
        {field.kind === 'datetime' && <span class="unit">{` (${readerTimeZone()})`}</span>}
        {field.required && (
          <span class="req" aria-hidden="true">
            {' '}
            *
          </span>
        )}
      </label>
      {input}
      <FieldHelp field={field} helpId={helpId} error={error} errorId={errorId} />
    </div>
  );
}

function FieldHelp({ field, helpId, error, errorId }: { field: FieldInfo; helpId: string; error?: string | undefined; errorId: string }) {
  return (
    <>
      {field.description && (
        <p class="help" id={helpId}>
          {field.description}
        </p>
      )}
      {error && (
        <p class="field-error" id={errorId}>
          {error}
        </p>
      )}
    </>
  );
}
