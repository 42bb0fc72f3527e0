/**
 * What a page shows while what it loads (`useLoad`) is not there: "Loading…", or the error with
 * "Try again". Pages show a record that does not exist as `NotFound` themselves, before these.
 */
import type { ComponentChildren } from 'preact';
import { errorMessage, type LoadState } from '../lib/page.ts';

interface ErrorProps {
  /** Says what went wrong; by default the server's message (`errorMessage`). */
  readonly explain?: (error: Error) => string;
  /** Loads again; without it the alert has no "Try again". */
  readonly onRetry?: () => void;
}

/** The load's error as an alert, or nothing. */
export function LoadError({ error, explain = errorMessage, onRetry }: ErrorProps & { readonly error: Error | undefined }) {
  if (!error) return null;
  if (!onRetry) {
    return (
      <p class="alert alert-error" role="alert">
        {explain(error)}
      </p>
    );
  }
  return (
    <div class="alert alert-error" role="alert">
      {explain(error)}{' '}
      <button type="button" class="btn btn-link" onClick={onRetry}>
        Try again
      </button>
    </div>
  );
}

/**
 * The load's error (see `LoadError`), else a loading line until the first answer; nothing once
 * it is there. A reload keeps the previous answer on screen, so it shows no loading line.
 */
export function LoadStatus({ state, loadingText = 'Loading…', ...errorProps }: ErrorProps & { readonly state: LoadState<unknown>; readonly loadingText?: string }) {
  if (state.error) return <LoadError error={state.error} {...errorProps} />;
  if (state.data === undefined) return <p class="muted">{loadingText}</p>;
  return null;
}

/** A whole page whose content has not loaded: where it is (`crumbs`), its heading, then `LoadStatus`. */
export function LoadingPage({ heading, crumbs, state, onRetry }: { readonly heading: string; readonly crumbs?: ComponentChildren; readonly state: LoadState<unknown>; readonly onRetry: () => void }) {
  return (
    <section class="page">
      {crumbs !== undefined && (
        <nav class="crumbs" aria-label="Breadcrumb">
          {crumbs}
        </nav>
      )}
      <h1>{heading}</h1>
      <LoadStatus state={state} onRetry={onRetry} />
    </section>
  );
}
