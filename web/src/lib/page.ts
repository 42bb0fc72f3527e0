/** Small helpers every page uses. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.ts';

export const APP_NAME = 'Records';

export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · ${APP_NAME}` : APP_NAME;
  }, [title]);
}

/** "Party" → "Parties", "Invoice" → "Invoices", "Lead" → "Leads". */
export function pluralLabel(label: string): string {
  if (/[^aeiou]y$/i.test(label)) return `${label.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/i.test(label)) return `${label}es`;
  return `${label}s`;
}

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return 'Something went wrong. Please try again.';
}

export interface LoadState<T> {
  /** The latest answer (kept while a new one loads, so lists do not flicker). */
  readonly data: T | undefined;
  readonly error: Error | undefined;
  readonly loading: boolean;
}

/**
 * Runs `load` whenever `deps` change; the latest call wins. `reload` runs it again. Pages that
 * show one thing per URL are keyed by it, so their state starts empty for another thing.
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): [LoadState<T>, () => void] {
  const [state, setState] = useState<LoadState<T>>({ data: undefined, error: undefined, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((current) => ({ data: current.data, error: undefined, loading: true }));
    load().then(
      (data) => {
        if (live) setState({ data, error: undefined, loading: false });
      },
      (error: unknown) => {
        if (live) setState((current) => ({ data: current.data, error: error instanceof Error ? error : new Error(String(error)), loading: false }));
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return [state, () => setTick((value) => value + 1)];
}
