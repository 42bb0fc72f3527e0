/**
 * Agent tokens: create one with a label, scopes picked from the commands the person may use, an
 * expiry and optional rate limits; the token is shown once with a copy button; the person's tokens
 * listed with the limits that apply to them, revocable.
 */
import { useRef, useState } from 'preact/hooks';
import { NOT_AN_AGENTS_KINDS, type CommandKind } from '../../../runtime/command-kinds.ts';
import { ApiError, get, post } from '../lib/api.ts';
import { formatDateTime, optionLabel } from '../lib/format.ts';
import { useMeta } from '../lib/meta.ts';
import { errorMessage, pluralLabel, useDocumentTitle, useLoad } from '../lib/page.ts';
import type { AgentTokenInfo, AgentTokensAnswer, CommandInfo, CommandsAnswer, IssuedAgentToken, RateLimitsInfo } from '../lib/types.ts';
import { LoadError, LoadStatus } from '../components/load-status.tsx';
import { ConfirmDialog } from '../components/modal.tsx';
import { ShownOnce } from '../components/shown-once.tsx';

const EXPIRY_DAYS = [1, 7, 30, 90, 365] as const;

export function TokensPage() {
  useDocumentTitle('Agent tokens');
  const meta = useMeta();
  const [answer, reloadTokens] = useLoad(() => get<AgentTokensAnswer>('/api/auth/agent-tokens'), []);
  const tokens = { ...answer, data: answer.data?.tokens };
  const [commands] = useLoad(() => get<CommandsAnswer>('/api/commands').then((data) => data.commands), []);
  const [issued, setIssued] = useState<{ token: string; label: string; expires?: string | undefined } | null>(null);
  const [revoking, setRevoking] = useState<AgentTokenInfo | null>(null);

  return (
    <section class="page">
      <div class="page-head">
        <div>
          <h1>Agent tokens</h1>
          <p class="muted">Give a software agent its own token, limited to the commands you pick. Agents see personal data masked, and what needs approval comes to your inbox.</p>
        </div>
      </div>

      {issued && <IssuedTokenBox issued={issued} onDone={() => setIssued(null)} />}

      <section class="card" aria-labelledby="new-token-heading">
        <h2 id="new-token-heading">New agent token</h2>
        <LoadStatus state={commands} loadingText="Loading commands…" explain={(error) => `Could not load the commands you may use: ${errorMessage(error)}`} />
        {commands.data && (
          <NewTokenForm
            commands={commands.data}
            serverLimits={answer.data?.server_limits}
            onIssued={(token) => {
              setIssued(token);
              meta.notify(`Agent token “${token.label}” created.`);
              reloadTokens();
            }}
          />
        )}
      </section>

      <section aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">Your agent tokens</h2>
        <LoadError error={tokens.error} />
        {tokens.data && tokens.data.length === 0 && <p class="empty-state">You have no agent tokens yet.</p>}
        {tokens.data && tokens.data.length > 0 && (
          <div class="table-wrap">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">Label</th>
                  <th scope="col">Scopes</th>
                  <th scope="col">Created</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Limits</th>
                  <th scope="col">Status</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {tokens.data.map((token) => {
                  const { status } = token;
                  return (
                    <tr key={token.id}>
                      <td data-label="Label">{token.label}</td>
                      <td data-label="Scopes">
                        <ScopeList scopes={token.scopes} />
                      </td>
                      <td data-label="Created">{formatDateTime(token.created)}</td>
                      <td data-label="Expires">{formatDateTime(token.expires)}</td>
                      <td data-label="Last used">{token.last_used ? formatDateTime(token.last_used) : <span class="muted">never</span>}</td>
                      <td data-label="Limits" class="token-limits">
                        <LimitsText limits={token.limits} />
                        <span class="muted small">{` · at most ${token.max_affected} records per bulk command`}</span>
                      </td>
                      <td data-label="Status">
                        <span class={`status status-${status}`}>{optionLabel(status)}</span>
                      </td>
                      <td class="cell-actions">
                        {status === 'active' && (
                          <button type="button" class="btn btn-small btn-danger-quiet" onClick={() => setRevoking(token)} aria-label={`Revoke ${token.label}`}>
                            Revoke
                          </button>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </section>

      {revoking && (
        <ConfirmDialog
          title="Revoke agent token?"
          message={<p>{`The agent using “${revoking.label}” will be refused from now on. This cannot be undone.`}</p>}
          confirmLabel="Revoke"
          danger
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            await post('/api/auth/agent-token/revoke', { id: revoking.id });
            meta.notify(`Agent token “${revoking.label}” revoked.`);
            setRevoking(null);
            reloadTokens();
          }}
        />
      )}
    </section>
  );
}

/** `600 requests, 120 writes a minute`; 0 reads as unlimited. */
function LimitsText({ limits }: { limits: RateLimitsInfo }) {
  const part = (n: number, what: string) => (n === 0 ? `unlimited ${what}` : `${n} ${what}`);
  return <span>{`${part(limits.requests_per_minute, 'requests')}, ${part(limits.writes_per_minute, 'writes')} a minute`}</span>;
}

function ScopeList({ scopes }: { scopes: readonly string[] }) {
  const shown = scopes.slice(0, 6);
  return (
    <span class="scopes">
      {shown.map((scope) => (
        <code key={scope}>{scope}</code>
      ))}
      {scopes.length > shown.length && <span class="muted small">{` +${scopes.length - shown.length} more`}</span>}
    </span>
  );
}

function NewTokenForm({
  commands,
  serverLimits,
  onIssued,
}: {
  commands: readonly CommandInfo[];
  serverLimits: RateLimitsInfo | undefined;
  onIssued: (issued: { token: string; label: string; expires?: string | undefined }) => void;
}) {
  const meta = useMeta();
  const [label, setLabel] = useState('');
  const [days, setDays] = useState(30);
  const [scopes, setScopes] = useState<ReadonlySet<string>>(new Set());
  const [requestsPerMinute, setRequestsPerMinute] = useState('');
  const [writesPerMinute, setWritesPerMinute] = useState('');
  const [maxAffected, setMaxAffected] = useState('');
  const [errors, setErrors] = useState<{ label?: string; scopes?: string; limits?: string; maxAffected?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);
  const labelRef = useRef<HTMLInputElement>(null);

  // Only what an agent can be given: a scope naming another command would give it nothing.
  const offered = commands.filter((command) => !NOT_AN_AGENTS_KINDS.has(command.id.split('.')[1] as CommandKind));
  const groups = new Map<string, CommandInfo[]>();
  for (const command of offered) {
    const model = command.id.split('.')[0] ?? '';
    groups.set(model, [...(groups.get(model) ?? []), command]);
  }

  function toggle(ids: readonly string[], on: boolean) {
    const next = new Set(scopes);
    for (const id of ids) {
      if (on) next.add(id);
      else next.delete(id);
    }
    setScopes(next);
  }

  async function submit(event: Event) {
    event.preventDefault();
    const found: typeof errors = {};
    if (!label.trim()) found.label = 'Give the token a label, e.g. the agent’s name.';
    if (scopes.size === 0) found.scopes = 'Pick at least one command the agent may use.';
    const limits: Record<string, number> = {};
    for (const [key, text] of [
      ['requests_per_minute', requestsPerMinute],
      ['writes_per_minute', writesPerMinute],
    ] as const) {
      if (text.trim() === '') continue;
      if (!/^\d+$/.test(text.trim())) found.limits = 'Limits are whole numbers of calls a minute (0 for unlimited), or empty for the server’s.';
      else limits[key] = Number(text.trim());
    }
    const cap = maxAffected.trim();
    if (cap !== '' && !/^[1-9]\d*$/.test(cap)) found.maxAffected = 'The most records per bulk command is a whole number from 1, or empty for 100.';
    setErrors(found);
    if (found.label) {
      labelRef.current?.focus();
      return;
    }
    if (found.scopes || found.limits || found.maxAffected) return;
    setBusy(true);
    try {
      const ordered = offered.map((command) => command.id).filter((id) => scopes.has(id));
      const issued = await post<IssuedAgentToken>('/api/auth/agent-token', {
        scopes: ordered,
        label: label.trim(),
        expires_in_days: days,
        ...(Object.keys(limits).length > 0 ? { limits } : {}),
        ...(cap !== '' ? { max_affected: Number(cap) } : {}),
      });
      onIssued({ token: issued.token, label: label.trim(), expires: issued.expires });
      setLabel('');
      setScopes(new Set());
      setRequestsPerMinute('');
      setWritesPerMinute('');
      setMaxAffected('');
    } catch (caught) {
      const message = errorMessage(caught);
      if (caught instanceof ApiError && /^label\b/.test(message)) setErrors({ label: message });
      else if (caught instanceof ApiError && /^scope/.test(message)) setErrors({ scopes: message });
      else if (caught instanceof ApiError && /^limits/.test(message)) setErrors({ limits: message });
      else if (caught instanceof ApiError && /^max_affected/.test(message)) setErrors({ maxAffected: message });
      else setErrors({ form: message });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate class="token-form">
      {errors.form && (
        <p class="alert alert-error" role="alert">
          {errors.form}
        </p>
      )}
      <div class="form-grid">
        <div class={errors.label ? 'field has-error' : 'field'}>
          <label for="token-label">
            Label<span class="req" aria-hidden="true"> *</span>
          </label>
          <input
            id="token-label"
            ref={labelRef}
            type="text"
            maxLength={200}
            value={label}
            placeholder="e.g. Sales assistant"
            aria-invalid={errors.label ? 'true' : undefined}
            aria-describedby={errors.label ? 'token-label-error' : undefined}
            onInput={(event) => setLabel(event.currentTarget.value)}
          />
          {errors.label && (
            <p class="field-error" id="token-label-error">
              {errors.label}
            </p>
          )}
        </div>
        <div class="field">
          <label for="token-expiry">Expires after</label>
          <select id="token-expiry" value={String(days)} onChange={(event) => setDays(Number(event.currentTarget.value))}>
            {EXPIRY_DAYS.map((option) => (
              <option value={String(option)} key={option}>
                {option === 1 ? '1 day' : `${option} days`}
              </option>
            ))}
          </select>
        </div>
        <LimitInput
          id="token-requests"
          label="Requests a minute"
          value={requestsPerMinute}
          serverLimit={serverLimits?.requests_per_minute}
          invalid={Boolean(errors.limits)}
          onInput={setRequestsPerMinute}
        />
        <LimitInput id="token-writes" label="Writes a minute" value={writesPerMinute} serverLimit={serverLimits?.writes_per_minute} invalid={Boolean(errors.limits)} onInput={setWritesPerMinute} />
        <div class={errors.maxAffected ? 'field has-error' : 'field'}>
          <label for="token-max-affected">Records per bulk command</label>
          <input
            id="token-max-affected"
            type="text"
            inputMode="numeric"
            value={maxAffected}
            placeholder="100"
            aria-invalid={errors.maxAffected ? 'true' : undefined}
            aria-describedby={errors.maxAffected ? 'token-max-affected-error' : 'token-max-affected-help'}
            onInput={(event) => setMaxAffected(event.currentTarget.value)}
          />
          {errors.maxAffected ? (
            <p class="field-error" id="token-max-affected-error">
              {errors.maxAffected}
            </p>
          ) : (
            <p class="field-help small muted" id="token-max-affected-help">
              The most records one bulk plan of the agent names. Empty: 100.
            </p>
          )}
        </div>
      </div>
      {errors.limits && (
        <p class="field-error" id="token-limits-error">
          {errors.limits}
        </p>
      )}
      <fieldset class={errors.scopes ? 'scopes-picker has-error' : 'scopes-picker'} aria-describedby={errors.scopes ? 'token-scopes-error' : undefined}>
        <legend>Commands the agent may use</legend>
        {errors.scopes && (
          <p class="field-error" id="token-scopes-error">
            {errors.scopes}
          </p>
        )}
        <div class="scope-groups">
          {[...groups].map(([modelName, list]) => {
            const model = meta.model(modelName);
            const ids = list.map((command) => command.id);
            const all = ids.every((id) => scopes.has(id));
            const some = ids.some((id) => scopes.has(id));
            return (
              <fieldset class="scope-group" key={modelName}>
                <legend>
                  <label class="check">
                    <input
                      type="checkbox"
                      checked={all}
                      ref={(element) => {
                        if (element) element.indeterminate = some && !all;
                      }}
                      onChange={(event) => toggle(ids, event.currentTarget.checked)}
                    />
                    <strong>{model ? pluralLabel(model.label) : modelName}</strong>
                  </label>
                </legend>
                {list.map((command) => (
                  <label class="check" key={command.id} title={command.description}>
                    <input type="checkbox" checked={scopes.has(command.id)} onChange={(event) => toggle([command.id], event.currentTarget.checked)} />
                    <span>
                      <span class="mono">{command.id.split('.')[1]}</span>
                      {command.needs_approval && <span class="tag">needs approval</span>}
                    </span>
                  </label>
                ))}
              </fieldset>
            );
          })}
        </div>
        <div class="row-actions">
          <button type="button" class="btn btn-link" onClick={() => toggle(offered.map((command) => command.id), true)}>
            Select all
          </button>
          <button type="button" class="btn btn-link" onClick={() => setScopes(new Set())}>
            Select none
          </button>
          <button type="button" class="btn btn-link" onClick={() => toggle(offered.filter((command) => /\.(get|list|search)$/.test(command.id)).map((command) => command.id), true)}>
            Add all read commands
          </button>
        </div>
      </fieldset>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create token'}
        </button>
      </div>
    </form>
  );
}

/** A rate limit: empty for the server's (shown as the placeholder), 0 for unlimited. */
function LimitInput(props: { id: string; label: string; value: string; serverLimit: number | undefined; invalid: boolean; onInput: (value: string) => void }) {
  const hint = props.serverLimit === undefined ? '' : props.serverLimit === 0 ? 'unlimited' : `${props.serverLimit} (the server’s)`;
  return (
    <div class={props.invalid ? 'field has-error' : 'field'}>
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        type="text"
        inputMode="numeric"
        value={props.value}
        placeholder={hint}
        aria-invalid={props.invalid ? 'true' : undefined}
        aria-describedby={props.invalid ? 'token-limits-error' : `${props.id}-help`}
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
      <p class="field-help small muted" id={`${props.id}-help`}>
        Empty: the server’s limit. 0: unlimited.
      </p>
    </div>
  );
}

function IssuedTokenBox({ issued, onDone }: { issued: { token: string; label: string; expires?: string | undefined }; onDone: () => void }) {
  return (
    <ShownOnce
      id="issued-token"
      title={`Token for “${issued.label}”`}
      intro={
        <>
          <strong>Copy it now: it will not be shown again.</strong>
          {issued.expires ? ` It expires ${formatDateTime(issued.expires)}.` : ''}
        </>
      }
      label="Agent token"
      noun="token"
      value={issued.token}
      onDone={onDone}
    />
  );
}
