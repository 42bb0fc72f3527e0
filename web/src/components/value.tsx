/**
 * A field's value, shown by its kind: money with its decimals (and its currency), decimals and dates
 * in the app's locale, datetimes with the reader's time zone, options, yes/no, refs as links, email
 * addresses, phone numbers and http(s) URLs as links (any other URL is text: a click never runs
 * anything).
 */
import { can, useMeta } from '../lib/meta.ts';
import { formatAmount, formatDate, formatInstant, inDeclaredOrder, linkHref, optionLabel, valueText } from '../lib/format.ts';
import { onLinkClick, paths } from '../lib/router.ts';
import { filesOf } from '../lib/files.ts';
import type { FieldInfo } from '../lib/types.ts';
import { FileList } from './file-field.tsx';

export type TitleLookup = (model: string, id: string) => string | null | undefined;

export function Empty() {
  return (
    <span class="empty" aria-label="empty">
      —
    </span>
  );
}

export function FieldValue({ field, value, title, full = false }: { field: FieldInfo; value: unknown; title: TitleLookup; full?: boolean }) {
  const meta = useMeta();
  if (value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) return <Empty />;
  switch (field.kind) {
    case 'money':
      return <span class="num">{typeof value === 'number' ? formatAmount(value, field.currency) : String(value)}</span>;
    case 'number':
    case 'decimal':
      return <span class="num">{valueText(field, value)}</span>;
    case 'date':
      return typeof value === 'string' ? <time dateTime={value}>{formatDate(value)}</time> : <span>{String(value)}</span>;
    case 'datetime':
      return typeof value === 'string' ? (
        <time dateTime={value} title={value}>
          {formatInstant(value)}
        </time>
      ) : (
        <span>{String(value)}</span>
      );
    case 'multiselect':
      return Array.isArray(value) ? (
        <span class="pills">
          {inDeclaredOrder(field, value.map(String)).map((option) => (
            <OptionPill field={field} value={option} key={option} />
          ))}
        </span>
      ) : (
        <span>{String(value)}</span>
      );
    case 'email':
    case 'url':
    case 'phone': {
      const text = String(value);
      // Masked for agents (a token) or not of its kind: shown as text, never a link.
      const href = field.masked ? undefined : linkHref(field.kind, text);
      return href ? (
        <a class={full ? 'link-value' : 'link-value clip'} href={href} {...(field.kind === 'url' ? { target: '_blank', rel: 'noopener noreferrer nofollow' } : {})}>
          {text}
        </a>
      ) : (
        <span class={full ? undefined : 'clip'}>{text}</span>
      );
    }
    case 'bool':
      return <span class={value === true ? 'bool bool-yes' : 'bool bool-no'}>{value === true ? 'Yes' : 'No'}</span>;
    case 'select':
      return <OptionPill field={field} value={String(value)} />;
    case 'ref':
      return <RefLink target={field.target ?? ''} id={String(value)} title={title} linked={can(meta.model(field.target ?? ''), 'get')} />;
    case 'longtext':
      return <span class={full ? 'longtext' : 'clip'}>{String(value)}</span>;
    case 'file': {
      // A masked field (an agent's view) holds a token, not files.
      const files = filesOf(value);
      if (files.length === 0) return <span class={full ? undefined : 'clip'}>{String(value)}</span>;
      return full ? <FileList files={files} /> : <span class="clip">{files.map((file) => file.name).join(', ')}</span>;
    }
    default:
      return <span class={full ? undefined : 'clip'}>{String(value)}</span>;
  }
}

export function OptionPill({ field, value }: { field: FieldInfo; value: string }) {
  const index = field.options?.indexOf(value) ?? -1;
  return <span class={`pill pill-${index < 0 ? 'x' : index % 6}`}>{optionLabel(value)}</span>;
}

export function RefLink({ target, id, title, linked }: { target: string; id: string; title: TitleLookup; linked: boolean }) {
  const name = title(target, id);
  const text = name ?? id;
  if (!linked || name === null) return <span class={name === null ? 'muted' : undefined}>{text}</span>;
  return (
    <a href={paths.record(target, id)} onClick={onLinkClick}>
      {text}
    </a>
  );
}
