/**
 * The input of a ref field: a combobox that searches the target model by its title field
 * (`contains`) and keeps the chosen record's id. Arrow keys move, Enter picks, Escape closes.
 * When the person may not search the target, it falls back to a plain id input.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { search } from '../lib/api.ts';
import { can, recordTitle, titleFieldOf, useMeta } from '../lib/meta.ts';
import { rememberTitle, useTitles } from '../lib/titles.ts';
import type { FilterCondition } from '../lib/types.ts';

interface Option {
  readonly id: string;
  readonly title: string;
}

const PAGE = 8;

export function RefPicker(props: {
  id: string;
  name: string;
  target: string;
  value: string;
  required: boolean;
  onChange: (id: string) => void;
  'aria-invalid'?: 'true' | undefined;
  'aria-describedby'?: string | undefined;
  'aria-required'?: 'true' | undefined;
  'aria-label'?: string;
}) {
  const meta = useMeta();
  const model = meta.model(props.target);
  const titleField = model && titleFieldOf(model);
  const searchable = model !== undefined && can(model, 'search');
  const title = useTitles(props.value ? [[props.target, props.value]] : []);
  const selectedTitle = props.value ? (title(props.target, props.value) ?? props.value) : '';

  const [text, setText] = useState(selectedTitle);
  const [editing, setEditing] = useState(false);
  const [open, setOpen] = useState(false);
  const [options, setOptions] = useState<Option[]>([]);
  const [total, setTotal] = useState(0);
  const [active, setActive] = useState(-1);
  const [loading, setLoading] = useState(false);
  const [failed, setFailed] = useState(false);
  const request = useRef(0);
  const latest = useRef({ text, selectedTitle, value: props.value, onChange: props.onChange });
  const listId = `${props.id}-options`;

  useEffect(() => {
    if (!editing) setText(selectedTitle);
  }, [selectedTitle, editing]);

  useEffect(() => {
    if (!open || !model) return;
    const ticket = ++request.current;
    const query = text.trim();
    const byTitle = titleField && (titleField.kind === 'text' || titleField.kind === 'longtext');
    const filter: FilterCondition[] = query && byTitle && editing ? [{ field: titleField.name, op: 'contains', value: query }] : [];
    const timer = setTimeout(
      () => {
        setLoading(true);
        search(model.name, { filter, order: titleField ? [{ field: titleField.name, dir: 'asc' }] : [], limit: PAGE })
          .then((result) => {
            if (ticket !== request.current) return;
            const found = result.rows.map((row) => ({ id: row.id, title: recordTitle(model, row) }));
            for (const option of found) rememberTitle(model.name, option.id, option.title);
            setOptions(found);
            setTotal(result.total);
            setActive(found.length > 0 ? 0 : -1);
            setFailed(false);
          })
          .catch(() => {
            if (ticket === request.current) setFailed(true);
          })
          .finally(() => {
            if (ticket === request.current) setLoading(false);
          });
      },
      query ? 200 : 0,
    );
    return () => clearTimeout(timer);
  }, [open, text, editing, model?.name]);

  if (!searchable || !model) {
    return (
      <input
        id={props.id}
        name={props.name}
        type="text"
        value={props.value}
        placeholder={`Id of a ${props.target}`}
        aria-invalid={props['aria-invalid']}
        aria-describedby={props['aria-describedby']}
        aria-required={props['aria-required']}
        aria-label={props['aria-label']}
        onInput={(event) => props.onChange(event.currentTarget.value)}
      />
    );
  }

  function choose(option: Option) {
    rememberTitle(props.target, option.id, option.title);
    props.onChange(option.id);
    setText(option.title);
    setEditing(false);
    setOpen(false);
  }

  // Blur closes the list a moment later: read what is current then, not what this render saw.
  latest.current = { text, selectedTitle, value: props.value, onChange: props.onChange };
  function close() {
    const now = latest.current;
    setOpen(false);
    setEditing(false);
    if (now.text.trim() === '' && now.value) now.onChange('');
    else setText(now.selectedTitle);
  }

  function onKeyDown(event: KeyboardEvent) {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      if (!open) setOpen(true);
      else setActive((index) => Math.min(options.length - 1, index + 1));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((index) => Math.max(0, index - 1));
    } else if (event.key === 'Enter') {
      if (open) {
        event.preventDefault();
        const option = options[active];
        if (option) choose(option);
      }
    } else if (event.key === 'Escape') {
      if (open) {
        event.preventDefault();
        event.stopPropagation();
        close();
      }
    }
  }

  const activeOption = open ? options[active] : undefined;
  return (
    <div class="combo">
      <div class="combo-row">
        <input
          id={props.id}
          name={props.name}
          type="text"
          role="combobox"
          autoComplete="off"
          aria-autocomplete="list"
          aria-expanded={open ? 'true' : 'false'}
          aria-controls={listId}
          aria-activedescendant={activeOption ? `${listId}-${activeOption.id}` : undefined}
          aria-invalid={props['aria-invalid']}
          aria-describedby={props['aria-describedby']}
          aria-required={props['aria-required']}
          aria-label={props['aria-label']}
          placeholder={`Search ${model.label.toLowerCase()}…`}
          value={text}
          onInput={(event) => {
            setText(event.currentTarget.value);
            setEditing(true);
            setOpen(true);
          }}
          onClick={() => setOpen(true)}
          onBlur={() => setTimeout(close, 150)}
          onKeyDown={onKeyDown}
        />
        {props.value && !props.required && (
          <button
            type="button"
            class="btn btn-icon combo-clear"
            aria-label={`Clear ${model.label.toLowerCase()}`}
            title="Clear"
            onClick={() => {
              props.onChange('');
              setText('');
            }}
          >
            ×
          </button>
        )}
      </div>
      {open && (
        <ul class="combo-list" id={listId} role="listbox" aria-label={`${model.label} records`}>
          {options.map((option, index) => (
            <li
              key={option.id}
              id={`${listId}-${option.id}`}
              role="option"
              aria-selected={index === active ? 'true' : 'false'}
              class={index === active ? 'active' : undefined}
              onMouseDown={(event) => event.preventDefault()}
              onClick={() => choose(option)}
            >
              {option.title}
            </li>
          ))}
          {!loading && options.length === 0 && <li class="combo-note">{failed ? 'Could not search.' : 'No matches.'}</li>}
          {loading && options.length === 0 && <li class="combo-note">Searching…</li>}
          {total > options.length && <li class="combo-note">{`${total - options.length} more: type to narrow down`}</li>}
        </ul>
      )}
    </div>
  );
}
