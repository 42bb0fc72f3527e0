/** Which fields a list shows: a checkbox per field (the title always), in the list's column order, and back to the default. */
import { columnOrder } from '../lib/list-prefs.ts';
import { titleFieldOf } from '../lib/meta.ts';
import type { FieldInfo, ModelInfo } from '../lib/types.ts';

export function ColumnChooser({ model, shown, customised, onChange }: { model: ModelInfo; shown: readonly FieldInfo[]; customised: boolean; onChange: (names: string[] | undefined) => void }) {
  const title = titleFieldOf(model);
  const shownNames = new Set(shown.map((field) => field.name));
  const choosable = title ? [title, ...columnOrder(model)] : columnOrder(model);
  function toggle(field: FieldInfo, on: boolean) {
    const next = choosable.filter((candidate) => candidate !== title && (candidate === field ? on : shownNames.has(candidate.name)));
    onChange(next.map((candidate) => candidate.name));
  }
  return (
    <div id="list-columns" class="panel">
      <fieldset class="column-chooser">
        <legend>Columns</legend>
        <div class="column-options">
          {choosable.map((field) => (
            <label class="check" key={field.name}>
              <input type="checkbox" checked={field === title || shownNames.has(field.name)} disabled={field === title} onChange={(event) => toggle(field, event.currentTarget.checked)} />
              <span>{field.label}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <p class="small muted column-note">
        {columnNote(title)}
        {customised && (
          <>
            {' '}
            <button type="button" class="btn btn-link" onClick={() => onChange(undefined)}>
              Back to the default columns
            </button>
          </>
        )}
      </p>
    </div>
  );
}

function columnNote(title: FieldInfo | undefined): string {
  return `${title ? `${title.label} is always shown. ` : ''}Your choice is remembered on this device.`;
}
