/** One form field: its label, the input suited to its kind, its help text and its error. */
import type { Draft } from '../lib/form.ts';
import { moneyInputText, optionLabel } from '../lib/format.ts';
import type { FieldInfo } from '../lib/types.ts';
import { RefPicker } from './ref-picker.tsx';

export function FieldInput({ model, field, value, error, onChange }: { model: string; field: FieldInfo; value: Draft; error?: string | undefined; onChange: (value: Draft) => void }) {
  const id = `field-${model}-${field.name}`;
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
      input = <textarea {...common} rows={4} value={text} onInput={(event) => onChange(event.currentTarget.value)} />;
      break;
    case 'number':
      input = <input {...common} type="text" inputMode="numeric" autoComplete="off" value={text} onInput={(event) => onChange(event.currentTarget.value)} />;
      break;
    case 'money':
      input = (
        <input {...common} class="input-money" type="text" inputMode="decimal" autoComplete="off" placeholder={moneyInputText(0, field.currency)} value={text} onInput={(event) => onChange(event.currentTarget.value)} />
      );
      break;
    case 'date':
      input = <input {...common} type="date" value={text} onInput={(event) => onChange(event.currentTarget.value)} />;
      break;
    case 'bool':
      return (
        <div class={error ? 'field field-check has-error' : 'field field-check'}>
          <input {...common} type="checkbox" checked={value === true} onChange={(event) => onChange(event.currentTarget.checked)} />
          <label for={id}>{field.label}</label>
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
      input = <input {...common} type="text" inputMode={field.name.includes('email') ? 'email' : undefined} autoComplete="off" value={text} onInput={(event) => onChange(event.currentTarget.value)} />;
  }
  return (
    <div class={`field field-${field.kind}${error ? ' has-error' : ''}`}>
      <label for={id}>
        {field.label}
        {field.kind === 'money' && field.currency && <span class="unit">{` (${field.currency})`}</span>}
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
