/**
 * Webhooks (admin only): the subscriptions, each with its URL, models, commands, role and how many
 * secrets sign; create one (its generated secret shown once, with a copy button), edit it, rotate
 * its secret (a second one added, shown once; then the old one dropped), delete it; and its
 * deliveries, with redelivery of one or of every dead one. Everything goes through the webhook
 * commands (`POST /api/webhook/<command>`); a refusal shows the server's own text in the form.
 */
import { useState } from 'preact/hooks';
import { post } from '../lib/api.ts';
import { formatDateTime } from '../lib/format.ts';
import { useMeta } from '../lib/meta.ts';
import { errorMessage, useDocumentTitle, useLoad } from '../lib/page.ts';
import { LoadError } from '../components/load-status.tsx';
import { ConfirmDialog } from '../components/modal.tsx';
import { ShownOnce } from '../components/shown-once.tsx';
import type { WebhookDeliveryInfo as Delivery, WebhookInfo as Webhook } from '../lib/types.ts';

async function command<T>(name: string, input: Record<string, unknown>): Promise<T> {
  return (await post<{ value: T }>(`/api/webhook/${name}`, input)).value;
}

/** `a, b` → ['a', 'b']; empty → null (all). */
function namesOf(text: string): string[] | null {
  const names = text
    .split(/[\s,]+/)
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return names.length > 0 ? names : null;
}

export function WebhooksPage() {
  useDocumentTitle('Webhooks');
  const meta = useMeta();
  const [webhooks, reload] = useLoad(() => command<Webhook[]>('list', {}), []);
  const [shownSecret, setShownSecret] = useState<{ title: string; secret: string } | null>(null);
  const [editing, setEditing] = useState<Webhook | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [watching, setWatching] = useState<Webhook | null>(null);
  // A new key after each save: the form starts empty again.
  const [saves, setSaves] = useState(0);

  return (
    <section class="page">
      <div class="page-head">
        <div>
          <h1>Webhooks</h1>
          <p class="muted">Every committed change is sent, signed, to the URLs subscribed here, shaped by the role each one sends as.</p>
        </div>
      </div>

      {shownSecret && <SecretBox title={shownSecret.title} secret={shownSecret.secret} onDone={() => setShownSecret(null)} />}

      <section class="card" aria-labelledby="webhook-form-heading">
        <h2 id="webhook-form-heading">{editing ? 'Edit webhook' : 'New webhook'}</h2>
        <WebhookForm
          key={editing?.id ?? `new-${saves}`}
          editing={editing}
          onSaved={(saved, secret) => {
            if (secret) setShownSecret({ title: `Secret for ${saved.url}`, secret });
            meta.notify(editing ? 'Webhook saved.' : 'Webhook created.');
            setEditing(null);
            setSaves((count) => count + 1);
            reload();
          }}
          onCancel={() => setEditing(null)}
          onRotated={(secret) => {
            setShownSecret({ title: `New secret for ${editing?.url ?? ''}`, secret });
            reload();
          }}
        />
      </section>

      <section aria-labelledby="webhooks-heading">
        <h2 id="webhooks-heading">Subscriptions</h2>
        <LoadError error={webhooks.error} />
        {webhooks.data && webhooks.data.length === 0 && <p class="empty-state">No webhooks yet.</p>}
        {webhooks.data && webhooks.data.length > 0 && (
          <div class="table-wrap">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Models</th>
                  <th scope="col">Commands</th>
                  <th scope="col">Sends as</th>
                  <th scope="col">Secrets</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {webhooks.data.map((webhook) => (
                  <tr key={webhook.id}>
                    <td data-label="URL" class="mono">
                      {webhook.url}
                    </td>
                    <td data-label="Models">{webhook.models?.join(', ') ?? <span class="muted">all</span>}</td>
                    <td data-label="Commands">{webhook.commands?.join(', ') ?? <span class="muted">all</span>}</td>
                    <td data-label="Sends as">{webhook.as_role}</td>
                    <td data-label="Secrets">
                      <span class="status status-active">{webhook.secret_count === 2 ? 'active, 2 secrets (rotating)' : 'active, 1 secret'}</span>
                    </td>
                    <td class="cell-actions">
                      <button type="button" class="btn btn-small" onClick={() => setWatching(webhook)} aria-label={`Deliveries of ${webhook.url}`}>
                        Deliveries
                      </button>
                      <button type="button" class="btn btn-small" onClick={() => setEditing(webhook)} aria-label={`Edit ${webhook.url}`}>
                        Edit
                      </button>
                      <button type="button" class="btn btn-small btn-danger-quiet" onClick={() => setDeleting(webhook)} aria-label={`Delete ${webhook.url}`}>
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      {watching && <Deliveries key={watching.id} webhook={watching} onClose={() => setWatching(null)} />}

      {deleting && (
        <ConfirmDialog
          title="Delete webhook?"
          message={<p>{`Nothing more will be sent to ${deleting.url}, and its deliveries are forgotten. This cannot be undone.`}</p>}
          confirmLabel="Delete"
          danger
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await command('delete', { id: deleting.id });
            meta.notify('Webhook deleted.');
            if (editing?.id === deleting.id) setEditing(null);
            if (watching?.id === deleting.id) setWatching(null);
            setDeleting(null);
            reload();
          }}
        />
      )}
    </section>
  );
}

function WebhookForm(props: { editing: Webhook | null; onSaved: (saved: Webhook, secret?: string) => void; onCancel: () => void; onRotated: (secret: string) => void }) {
  const { editing } = props;
  const [url, setUrl] = useState(editing?.url ?? '');
  const [models, setModels] = useState(editing?.models?.join(', ') ?? '');
  const [commands, setCommands] = useState(editing?.commands?.join(', ') ?? '');
  const [role, setRole] = useState(editing?.as_role ?? '');
  const [secretCount, setSecretCount] = useState(editing?.secret_count ?? 1);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const settings = { url: url.trim(), as_role: role.trim(), models: namesOf(models), commands: namesOf(commands) };
      if (editing) props.onSaved(await command<Webhook>('update', { id: editing.id, ...settings }));
      else {
        const made = await command<Webhook & { secrets: string[] }>('create', settings);
        props.onSaved(made, made.secrets[0]);
      }
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setBusy(false);
    }
  }

  async function rotate(step: 'add' | 'drop_old') {
    if (!editing) return;
    setError(null);
    try {
      const rotated = await command<Webhook & { new_secret?: string }>('update', { id: editing.id, rotate: step });
      setSecretCount(rotated.secret_count);
      if (rotated.new_secret) props.onRotated(rotated.new_secret);
    } catch (caught) {
      setError(errorMessage(caught));
    }
  }

  return (
    <form onSubmit={submit} noValidate class="token-form">
      {error && (
        <p class="alert alert-error" role="alert" id="webhook-form-error">
          {error}
        </p>
      )}
      <div class="form-grid">
        <div class={error ? 'field has-error' : 'field'}>
          <label for="webhook-url">
            URL<span class="req" aria-hidden="true"> *</span>
          </label>
          <input id="webhook-url" type="url" value={url} placeholder="https://erp.example.com/hooks/rms" aria-describedby={error ? 'webhook-form-error' : undefined} onInput={(event) => setUrl(event.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="webhook-role">
            Sends as role<span class="req" aria-hidden="true"> *</span>
          </label>
          <input id="webhook-role" type="text" value={role} placeholder="e.g. sales" onInput={(event) => setRole(event.currentTarget.value)} />
          <p class="field-help small muted">Only the fields this role reads are sent.</p>
        </div>
        <div class="field">
          <label for="webhook-models">Models</label>
          <input id="webhook-models" type="text" value={models} placeholder="all" onInput={(event) => setModels(event.currentTarget.value)} />
          <p class="field-help small muted">Comma-separated; empty: every model.</p>
        </div>
        <div class="field">
          <label for="webhook-commands">Commands</label>
          <input id="webhook-commands" type="text" value={commands} placeholder="all" onInput={(event) => setCommands(event.currentTarget.value)} />
          <p class="field-help small muted">e.g. create, update, qualify; empty: every command.</p>
        </div>
      </div>
      {editing && (
        <fieldset class="scopes-picker">
          <legend>Secret rotation</legend>
          <p class="small muted">
            {secretCount === 2
              ? 'Two secrets sign every request. Once the receiver uses the new one, drop the old one.'
              : 'One secret signs every request. Add a second one to rotate: both sign until you drop the old one.'}
          </p>
          <div class="row-actions">
            <button type="button" class="btn" disabled={secretCount !== 1} onClick={() => void rotate('add')}>
              Add a new secret
            </button>
            <button type="button" class="btn" disabled={secretCount !== 2} onClick={() => void rotate('drop_old')}>
              Drop the old secret
            </button>
          </div>
        </fieldset>
      )}
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Saving…' : editing ? 'Save webhook' : 'Create webhook'}
        </button>
        {editing && (
          <button type="button" class="btn" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

function Deliveries({ webhook, onClose }: { webhook: Webhook; onClose: () => void }) {
  const meta = useMeta();
  const [answer, reload] = useLoad(() => command<{ rows: Delivery[]; total: number }>('deliveries', { id: webhook.id, limit: 100 }), [webhook.id]);
  const [error, setError] = useState<string | null>(null);
  async function redeliver(input: Record<string, unknown>) {
    setError(null);
    try {
      const { redelivered } = await command<{ redelivered: number }>('redeliver', { id: webhook.id, ...input });
      meta.notify(redelivered === 1 ? 'One delivery sent again.' : `${redelivered} deliveries sent again.`);
      reload();
    } catch (caught) {
      setError(errorMessage(caught));
    }
  }
  const rows = answer.data?.rows;
  return (
    <section class="card" aria-labelledby="deliveries-heading">
      <div class="page-head">
        <h2 id="deliveries-heading">{`Deliveries to ${webhook.url}`}</h2>
        <div class="row-actions">
          <button type="button" class="btn" onClick={reload}>
            Refresh
          </button>
          <button type="button" class="btn" disabled={!rows?.some((row) => row.status === 'dead')} onClick={() => void redeliver({ dead: true })}>
            Redeliver every dead one
          </button>
          <button type="button" class="btn btn-link" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
      {error && (
        <p class="alert alert-error" role="alert">
          {error}
        </p>
      )}
      <LoadError error={answer.error} />
      {rows && rows.length === 0 && <p class="empty-state">Nothing sent yet.</p>}
      {rows && rows.length > 0 && (
        <div class="table-wrap">
          <table class="data">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last error</th>
                <th scope="col">Time</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.event_id}>
                  <td data-label="Event">
                    <span class="mono">{row.type}</span> <span class="muted small mono">{row.record_id}</span>
                  </td>
                  <td data-label="Status">
                    <span class={`status status-${row.status === 'delivered' ? 'active' : row.status === 'dead' ? 'revoked' : 'pending'}`}>{row.status}</span>
                  </td>
                  <td data-label="Attempts">{row.attempts}</td>
                  <td data-label="Last error">{row.last_error ?? <span class="muted">—</span>}</td>
                  <td data-label="Time">{formatDateTime(row.delivered_at ?? row.last_attempt_at ?? row.next_attempt_at ?? '')}</td>
                  <td class="cell-actions">
                    {row.status !== 'pending' && (
                      <button type="button" class="btn btn-small" onClick={() => void redeliver({ event_id: row.event_id })} aria-label={`Redeliver ${row.type} of ${row.record_id}`}>
                        Redeliver
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function SecretBox({ title, secret, onDone }: { title: string; secret: string; onDone: () => void }) {
  return (
    <ShownOnce
      id="webhook-secret"
      title={title}
      intro={
        <>
          <strong>Copy it now: it is shown once, and never again.</strong> The receiver verifies every request with it (Standard Webhooks).
        </>
      }
      label="Webhook secret"
      noun="secret"
      value={secret}
      onDone={onDone}
    />
  );
}
