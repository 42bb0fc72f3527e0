/**
 * A record's history as a caller sees it (`<model>.history`): fields the caller may not read are
 * left out of each change (and named in `denied`, as for reads); for an agent, personal values are
 * masking tokens under the rules of reads — the token it knows a value it wrote by, else the value's
 * shared token — so its history tells it no more than reading the record did.
 */
import type { Knex } from 'knex';
import { maskKey, sharedTokens, type MaskRequest } from '../agents/masking.ts';
import type { HistoryEntryInfo } from '../api-shapes.ts';
import type { Caller } from '../caller.ts';
import type { ModelRights } from '../rights.ts';
import type { HistoryEntry } from './store.ts';

export async function historyAsSeen(db: Knex, caller: Caller, rights: ModelRights, entries: readonly HistoryEntry[]): Promise<HistoryEntryInfo[]> {
  const visible = entries.map((entry) => ({
    entry,
    changes: Object.fromEntries(Object.entries(entry.changes).filter(([field]) => rights.readableNames.has(field))),
  }));
  if (caller.kind === 'agent' && rights.masked.length > 0) {
    const labels = new Map(rights.masked.map((field) => [field.name, field.maskLabel!]));
    // Values the agent knows by a token of its own keep it; the rest get shared tokens, in one batch.
    const requests: MaskRequest[] = [];
    const own = (tokens: readonly { agent: string; token: string }[] | undefined) => tokens?.find((token) => token.agent === caller.tokenId)?.token;
    const masked = visible.map(({ entry, changes }) => {
      const out: Record<string, { from: unknown; to: unknown }> = {};
      for (const [field, change] of Object.entries(changes)) {
        const label = labels.get(field);
        if (label === undefined) {
          out[field] = change;
          continue;
        }
        const side = (value: unknown, token: string | undefined): unknown => {
          if (typeof value !== 'string') return value;
          if (token !== undefined) return { token };
          requests.push({ label, value });
          return { label, value };
        };
        out[field] = { from: side(change.from, own(entry.fromTokens[field])), to: side(change.to, own(entry.toTokens[field])) };
      }
      return { entry, changes: out };
    });
    const tokens = requests.length > 0 ? await sharedTokens(db, caller.tokenId, requests) : new Map<string, string>();
    const resolve = (value: unknown): unknown => {
      if (typeof value !== 'object' || value === null) return value;
      if ('token' in value) return (value as { token: string }).token;
      const { label, value: clear } = value as { label: string; value: string };
      return tokens.get(maskKey(label, clear));
    };
    return masked.map(({ entry, changes }) =>
      info(entry, Object.fromEntries(Object.entries(changes).map(([field, change]) => [field, { from: resolve(change.from), to: resolve(change.to) }]))),
    );
  }
  return visible.map(({ entry, changes }) => info(entry, changes));
}

function info(entry: HistoryEntry, changes: Readonly<Record<string, { from: unknown; to: unknown }>>): HistoryEntryInfo {
  return {
    change_id: entry.changeId,
    at: entry.at,
    command: entry.command,
    by: { kind: entry.by.actor, username: entry.by.username, agent_label: entry.by.agentLabel ?? null },
    plan_id: entry.planId,
    ...(entry.reverts !== null ? { reverts: entry.reverts } : {}),
    changes,
  };
}
