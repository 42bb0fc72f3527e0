/**
 * Import a CSV file into a model, in steps: choose the file; map its columns to fields (matched
 * by header by default); check every row with a dry run (`create?dry_run=true`: the server's own
 * checks, nothing stored or audited), which lists the rows that would fail and why; then create
 * the rows that passed, one `create` each, so rights, validation, audit and history apply as for
 * a record made by hand. A failed row never stops the others; the failures can be downloaded as
 * CSV, fixed and imported again.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, command, dryRun, errorField, fieldMessage } from '../lib/api.ts';
import { csvFile, parseCsv, type CsvRecord } from '../lib/csv.ts';
import { download, exportFileName } from '../lib/export.ts';
import { can, recordTitle, titleFieldOf, useMeta } from '../lib/meta.ts';
import { errorMessage, pluralLabel, useDocumentTitle } from '../lib/page.ts';
import { joinWords, minorDigits } from '../lib/format.ts';
import { defaultMapping, importBlocker, importFields, importInput, unmatchedColumns, type RefLookup } from '../lib/records-csv.ts';
import { lookUpRefs } from '../lib/ref-lookup.ts';
import { onLinkClick, paths } from '../lib/router.ts';
import { rememberTitle } from '../lib/titles.ts';
import type { FieldInfo, FieldKind, ModelInfo, RecordValue } from '../lib/types.ts';

/** Rows sent at once: enough to be quick, few enough not to crowd out other people's requests. */
const CONCURRENCY = 4;
/** More rows than this are better loaded by a script against the API. */
const MAX_ROWS = 10_000;

interface ParsedFile {
  readonly name: string;
  readonly header: readonly string[];
  readonly rows: readonly CsvRecord[];
}

type RowResult = { readonly ok: true } | { readonly ok: false; readonly error: string };

interface Run {
  readonly kind: 'check' | 'import';
  readonly done: number;
  readonly total: number;
  readonly running: boolean;
  /** By index into the file's rows. */
  readonly results: ReadonlyMap<number, RowResult>;
  readonly stopped: boolean;
}

const EXPECTS: Record<Exclude<FieldKind, 'money' | 'select' | 'ref' | 'decimal' | 'multiselect'>, string> = {
  text: 'text',
  longtext: 'text; line breaks are kept',
  number: 'a whole number, like 42',
  date: 'a date as YYYY-MM-DD, like 2025-03-31',
  datetime: 'a date and time with its offset, like 2025-03-31T14:30:00Z',
  bool: 'true/false, yes/no or 1/0',
  email: 'an email address',
  url: 'a web address starting with http:// or https://',
  phone: 'a phone number',
  file: 'file ids (upload the files first), separated by commas',
};

/** Reads a file as UTF-8, or as Windows-1252 when it is not valid UTF-8 (older spreadsheet apps). */
async function readText(file: File): Promise<string> {
  const bytes = await file.arrayBuffer();
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}

export function ImportPage({ model }: { model: ModelInfo }) {
  const meta = useMeta();
  const plural = pluralLabel(model.label);
  useDocumentTitle(`Import ${plural.toLowerCase()}`);
  const fields = importFields(model);
  const governed = model.fields.filter((field) => field.governed);
  const blocker = importBlocker(model, plural);
  const [file, setFile] = useState<ParsedFile | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [mapping, setMapping] = useState<(string | null)[]>([]);
  const [check, setCheck] = useState<Run | null>(null);
  const [imported, setImported] = useState<Run | null>(null);
  const stop = useRef(false);

  async function chooseFile(chosen: File | undefined) {
    setFile(null);
    setCheck(null);
    setImported(null);
    setFileError(null);
    if (!chosen) return;
    const parsed = parseCsv(await readText(chosen));
    if (!parsed.ok) {
      setFileError(parsed.error);
      return;
    }
    const [header, ...rest] = parsed.records;
    const rows = rest.filter((row) => row.cells.some((cell) => cell.trim() !== ''));
    if (!header || rows.length === 0) {
      setFileError('The file has no rows under its header line.');
      return;
    }
    if (rows.length > MAX_ROWS) {
      setFileError(`The file has ${rows.length.toLocaleString('en-US')} rows; the app imports up to ${MAX_ROWS.toLocaleString('en-US')} at a time. Split it, or load it through the API.`);
      return;
    }
    setFile({ name: chosen.name, header: header.cells, rows });
    setMapping(defaultMapping(header.cells, fields));
  }

  /** Runs `send` for each row (a few at a time), recording each outcome; a failure never stops the rest. */
  async function runRows(kind: Run['kind'], indexes: readonly number[], send: (input: Record<string, unknown>) => Promise<void>, set: (run: Run) => void) {
    if (!file) return;
    stop.current = false;
    const results = new Map<number, RowResult>();
    let done = 0;
    // The page shows progress a few times a second, not after every row: copying the results for
    // each of 10,000 rows would cost more than sending them.
    let shownAt = 0;
    const update = (running: boolean) => {
      if (running && done > 0 && performance.now() - shownAt < 100) return;
      shownAt = performance.now();
      set({ kind, done, total: indexes.length, running, results: new Map(results), stopped: stop.current });
    };
    update(true);
    let refs: Map<string, RefLookup>;
    try {
      // The refs the rows name, by id or by title: looked up once for the whole run.
      const column = (field: FieldInfo) => mapping.indexOf(field.name);
      const mapped = fields.filter((field) => column(field) >= 0);
      refs = await lookUpRefs(mapped, meta.model, (field) => indexes.map((index) => file.rows[index]!.cells[column(field)] ?? ''));
    } catch (caught) {
      for (const index of indexes) results.set(index, { ok: false, error: `The records the file refers to could not be looked up: ${errorMessage(caught)}` });
      done = indexes.length;
      update(false);
      return;
    }
    let next = 0;
    const worker = async () => {
      while (next < indexes.length && !stop.current) {
        const index = indexes[next++]!;
        const { input, errors } = importInput(file.rows[index]!.cells, mapping, fields, refs);
        if (errors.length > 0) {
          results.set(index, { ok: false, error: errors.join('; ') });
        } else {
          try {
            await send(input);
            results.set(index, { ok: true });
          } catch (caught) {
            results.set(index, { ok: false, error: readableError(model, caught) });
            // The session ended (or the person lost the right): every row after it would be refused too.
            if (caught instanceof ApiError && (caught.status === 401 || caught.status === 404)) stop.current = true;
          }
        }
        done += 1;
        update(true);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, indexes.length) }, worker));
    update(false);
  }

  async function runCheck() {
    if (!file) return;
    setImported(null);
    await runRows(
      'check',
      file.rows.map((_, index) => index),
      async (input) => {
        const result = await dryRun(model.name, 'create', input);
        if (result.kind === 'proposed') throw new ApiError(202, 'would be sent for approval, not created');
      },
      setCheck,
    );
  }

  async function runImport(indexes: readonly number[]) {
    await runRows(
      'import',
      indexes,
      async (input) => {
        const result = await command<RecordValue>(model.name, 'create', input);
        if (result.kind === 'proposed') throw new ApiError(202, 'was sent for approval, not created');
        rememberTitle(model.name, result.value.id, recordTitle(model, result.value));
      },
      setImported,
    );
  }

  const mapped = new Set(mapping.filter((name): name is string => name !== null));
  const unmatched = file ? unmatchedColumns(file.header, mapping) : [];
  const missingRequired = fields.filter((field) => field.required && !mapped.has(field.name));
  const checkFailures = check && !check.running ? [...check.results].filter(([, result]) => !result.ok) : [];
  const passed = check && !check.running && !check.stopped ? file!.rows.map((_, index) => index).filter((index) => check.results.get(index)?.ok) : [];

  return (
    <section class="page page-import">
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href={paths.list(model.name)} onClick={onLinkClick}>
          {plural}
        </a>
      </nav>
      <h1>{`Import ${plural.toLowerCase()}`}</h1>

      {blocker && (
        <p class="alert alert-info import-blocked" role="note">
          {blocker}
        </p>
      )}
      {!blocker && model.lines.length > 0 && (
        <p class="muted small import-lines-note">{`Each row becomes one ${model.label.toLowerCase()}, without its ${joinWords(model.lines.map((list) => list.label.toLowerCase()))}: add them on the ${model.label.toLowerCase()}’s page afterwards.`}</p>
      )}
      {!blocker && (
      <div class="card">
        <h2>1. Choose a CSV file</h2>
        <p class="muted small">
          {`The first line names the columns. Each row becomes a new ${model.label.toLowerCase()}, made as if by hand: your rights, the checks and the audit trail apply. Commas or semicolons separate the values; UTF-8 is best.`}
        </p>
        <div class="field">
          <label for="import-file">CSV file</label>
          <input id="import-file" type="file" accept=".csv,text/csv" disabled={check?.running || imported?.running} onChange={(event) => void chooseFile(event.currentTarget.files?.[0])} />
        </div>
        {fileError && (
          <p class="alert alert-error" role="alert">
            {fileError}
          </p>
        )}
      </div>
      )}

      {file && (
        <div class="card">
          <h2>2. Match the columns to fields</h2>
          <p class="muted small">{`${file.name}: ${file.rows.length.toLocaleString('en-US')} ${file.rows.length === 1 ? 'row' : 'rows'}. Columns are matched to fields by their names; an empty cell leaves the field empty.`}</p>
          {unmatched.length > 0 && (
            <p class="alert alert-info import-unmatched-note" role="status">
              {`${unmatched.length === 1 ? 'This column matches' : `These ${unmatched.length} columns match`} no field and ${unmatched.length === 1 ? 'is' : 'are'} not imported: ${unmatched.join(', ')}. Choose a field for ${unmatched.length === 1 ? 'it' : 'each'} under “Import into” to import ${unmatched.length === 1 ? 'it' : 'them'}.`}
            </p>
          )}
          <div class="table-wrap">
            <table class="data compact import-mapping">
              <thead>
                <tr>
                  <th scope="col">Column</th>
                  <th scope="col">First row</th>
                  <th scope="col">Import into</th>
                </tr>
              </thead>
              <tbody>
                {file.header.map((header, column) => {
                  const field = fields.find((candidate) => candidate.name === mapping[column]);
                  return (
                    <tr key={column} class={field ? undefined : 'import-unmatched'}>
                      <td data-label="Column">{header || <span class="muted">{`(column ${column + 1})`}</span>}</td>
                      <td data-label="First row" class="import-sample">
                        <span class="clip">{file.rows[0]?.cells[column] ?? ''}</span>
                      </td>
                      <td data-label="Import into">
                        <div class="import-target">
                          <select
                            aria-label={`Field for column ${header || column + 1}`}
                            value={mapping[column] ?? ''}
                            disabled={check?.running || imported?.running}
                            onChange={(event) => {
                              const name = event.currentTarget.value || null;
                              setMapping((current) => current.map((other, index) => (index === column ? name : other === name ? null : other)));
                              setCheck(null);
                              setImported(null);
                            }}
                          >
                            <option value="">Don’t import</option>
                            {fields.map((candidate) => (
                              <option value={candidate.name} key={candidate.name}>
                                {candidate.label}
                              </option>
                            ))}
                          </select>
                          {field ? <span class="help">{expects(field, meta.model)}</span> : <span class="help import-left-out">Not imported</span>}
                        </div>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {governed.length > 0 && (
            <p class="muted small">{`${governed.map((field) => field.label).join(', ')} ${governed.length === 1 ? 'is' : 'are'} not imported: new records start at the first step, and actions move them on.`}</p>
          )}
          {missingRequired.length > 0 && (
            <p class="alert alert-info">{`No column goes into ${missingRequired.map((field) => field.label).join(', ')}, which ${missingRequired.length === 1 ? 'is' : 'are'} required: every row would fail.`}</p>
          )}
          <div class="row-actions import-actions">
            <button type="button" class="btn btn-primary" disabled={mapped.size === 0 || check?.running || imported?.running} onClick={() => void runCheck()}>
              {`Check ${file.rows.length.toLocaleString('en-US')} ${file.rows.length === 1 ? 'row' : 'rows'}`}
            </button>
            <span class="muted small">A dry run: the server checks every row and stores nothing.</span>
          </div>
        </div>
      )}

      {file && check && (
        <div class="card" aria-labelledby="import-check">
          <h2 id="import-check">3. Check</h2>
          <RunProgress run={check} label="Check progress" onStop={() => (stop.current = true)} />
          {!check.running && (
            <>
              <p role="status">
                {check.stopped
                  ? `Stopped after ${check.done.toLocaleString('en-US')} rows.`
                  : checkFailures.length === 0
                    ? `All ${passed.length.toLocaleString('en-US')} rows can be imported.`
                    : `${passed.length.toLocaleString('en-US')} of ${file.rows.length.toLocaleString('en-US')} rows can be imported; ${checkFailures.length.toLocaleString('en-US')} would fail.`}
              </p>
              {checkFailures.length > 0 && <FailureTable file={file} failures={checkFailures} caption="Rows that would fail" />}
              {!imported && passed.length > 0 && (
                <div class="row-actions">
                  <button type="button" class="btn btn-primary" onClick={() => void runImport(passed)}>
                    {`Import ${passed.length.toLocaleString('en-US')} ${passed.length === 1 ? 'row' : 'rows'}`}
                  </button>
                  {checkFailures.length > 0 && <span class="muted small">The rows that would fail are left out.</span>}
                </div>
              )}
            </>
          )}
        </div>
      )}

      {file && imported && (
        <div class="card" aria-labelledby="import-run">
          <h2 id="import-run">4. Import</h2>
          <RunProgress run={imported} label="Import progress" onStop={() => (stop.current = true)} />
          {!imported.running && <ImportSummary model={model} plural={plural} file={file} imported={imported} skipped={checkFailures} onDone={(count) => meta.notify(`${count.toLocaleString('en-US')} ${count === 1 ? model.label.toLowerCase() : plural.toLowerCase()} imported.`)} />}
        </div>
      )}
    </section>
  );
}

function expects(field: FieldInfo, modelOf: (name: string) => ModelInfo | undefined): string {
  switch (field.kind) {
    case 'select':
      return `Expects one of: ${(field.options ?? []).join(', ')}`;
    case 'multiselect':
      return `Expects any of, comma-separated: ${(field.options ?? []).join(', ')}`;
    case 'decimal': {
      const scale = field.scale ?? 2;
      return `Expects a number, like ${scale === 0 ? '1,234' : `1,234.${'5'.padEnd(scale, '0')}`} (${scale === 0 ? 'no decimals' : `at most ${scale} decimals`})`;
    }
    case 'money': {
      const digits = minorDigits(field.currency);
      const decimals = digits === 0 ? 'no decimals' : `${digits === 2 ? 'two' : digits} decimals at most`;
      return `Expects an amount in major units, like ${digits === 0 ? '1,234' : '1,234.50'} (${decimals}${field.currency ? `, ${field.currency}` : ''})`;
    }
    case 'ref': {
      const target = modelOf(field.target ?? '');
      const title = target && titleFieldOf(target);
      return `Expects the id of the ${target?.label.toLowerCase() ?? 'record'} it refers to${title ? `, or its ${title.label.toLowerCase()}` : ''}`;
    }
    default:
      return `Expects ${EXPECTS[field.kind]}`;
  }
}

/** `lead.title is required` → `Title is required`. */
function readableError(model: ModelInfo, caught: unknown): string {
  if (!(caught instanceof ApiError)) return errorMessage(caught);
  const name = errorField(caught.message, model.name, model.fields.map((field) => field.name));
  const field = name === undefined ? undefined : model.fields.find((candidate) => candidate.name === name);
  return field ? fieldMessage(caught.message, model.name, field) : caught.message;
}

function RunProgress({ run, label, onStop }: { run: Run; label: string; onStop: () => void }) {
  return (
    <div class="run-progress">
      <progress max={Math.max(run.total, 1)} value={run.done} aria-label={label} />
      <span class="small" aria-live="polite">{`${run.done.toLocaleString('en-US')} of ${run.total.toLocaleString('en-US')}`}</span>
      {run.running && (
        <button type="button" class="btn btn-small" onClick={onStop}>
          Stop
        </button>
      )}
    </div>
  );
}

function FailureTable({ file, failures, caption }: { file: ParsedFile; failures: readonly (readonly [number, RowResult])[]; caption: string }) {
  return (
    <div class="table-wrap">
      <table class="data compact import-failures">
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Line</th>
            <th scope="col">Problem</th>
          </tr>
        </thead>
        <tbody>
          {[...failures]
            .sort(([a], [b]) => a - b)
            .map(([index, result]) => (
              <tr key={index}>
                <td data-label="Line" class="num">
                  {file.rows[index]!.line}
                </td>
                <td data-label="Problem">{result.ok ? '' : result.error}</td>
              </tr>
            ))}
        </tbody>
      </table>
    </div>
  );
}

function ImportSummary({
  model,
  plural,
  file,
  imported,
  skipped,
  onDone,
}: {
  model: ModelInfo;
  plural: string;
  file: ParsedFile;
  imported: Run;
  skipped: readonly (readonly [number, RowResult])[];
  onDone: (created: number) => void;
}) {
  const created = [...imported.results.values()].filter((result) => result.ok).length;
  const failures = [...skipped, ...[...imported.results].filter(([, result]) => !result.ok)];
  useEffect(() => onDone(created), []);
  function downloadFailures() {
    const records = [...failures].sort(([a], [b]) => a - b).map(([index, result]) => [...file.header.map((_, column) => file.rows[index]!.cells[column] ?? ''), result.ok ? '' : result.error]);
    download(csvFile([[...file.header, 'Error'], ...records]), exportFileName(plural, '-failed'));
  }
  return (
    <>
      <p role="status" class="import-summary">
        <strong>{`${created.toLocaleString('en-US')} created`}</strong>
        {failures.length > 0 && <strong class="import-failed">{` · ${failures.length.toLocaleString('en-US')} failed`}</strong>}
        {imported.stopped && <span>{` · stopped after ${imported.done.toLocaleString('en-US')} of ${imported.total.toLocaleString('en-US')}`}</span>}
      </p>
      {failures.length > 0 && (
        <>
          <FailureTable file={file} failures={failures} caption="Rows that failed" />
          <p class="small muted">The failed rows, with the reason in an Error column, can be fixed and imported again.</p>
        </>
      )}
      <div class="row-actions">
        {failures.length > 0 && (
          <button type="button" class="btn" onClick={downloadFailures}>
            Download failed rows (CSV)
          </button>
        )}
        {can(model, 'search') || can(model, 'list') ? (
          <a class="btn btn-primary" href={paths.list(model.name)} onClick={onLinkClick}>
            {`Show ${plural.toLowerCase()}`}
          </a>
        ) : null}
      </div>
    </>
  );
}
