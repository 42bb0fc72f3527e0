/** Small helpers every page uses. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';
import { serviceName } from './service.ts';

export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = title ? `${title} · ${serviceName()}` : serviceName();
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

/** The time now, again every `everyMs`: for texts such as "3 minutes ago" that age while shown. */
export function useNow(everyMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/**
 * Scrolls the element `elementId` into view and moves focus to it (without scrolling again),
 * once per id, when it is on the page: how a linked item (`#change-…`) is shown after the page
 * that holds it has loaded it.
 */
export function useScrollIntoView(elementId: string | null): void {
  const done = useRef<string | null>(null);
  useEffect(() => {
    if (elementId === null) {
      done.current = null;
      return;
    }
    if (done.current === elementId) return;
    const element = document.getElementById(elementId);
    if (!element) return;
    done.current = elementId;
    element.scrollIntoView({ block: 'center' });
    if (!element.hasAttribute('tabindex')) element.tabIndex = -1;
    element.focus({ preventScroll: true });
  });
}
