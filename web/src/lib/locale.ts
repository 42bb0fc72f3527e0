/**
 * The locale the app writes numbers, amounts and dates in, and reads typed amounts in: the one the
 * service declares (`serve --locale`, carried by `GET /api/service`), else the browser's. The app
 * sets it once, before it shows anything; the formatters are made per locale and kept.
 */

let declared: string | null = null;

/** Uses `locale` from now on; null: the browser's. A locale this browser does not know is ignored. */
export function setAppLocale(locale: string | null): void {
  declared = locale !== null && knownLocale(locale) ? locale : null;
}

function knownLocale(locale: string): boolean {
  try {
    return Intl.NumberFormat.supportedLocalesOf([locale]).length > 0;
  } catch {
    return false; // not a locale tag at all
  }
}

export function appLocale(): string {
  return declared ?? new Intl.NumberFormat().resolvedOptions().locale;
}

const cache = new Map<string, unknown>();

/** The formatter `make` builds for the app's locale, built once per locale and `key`. */
export function localeFormat<T>(key: string, make: (locale: string) => T): T {
  const locale = appLocale();
  const id = `${locale}\u0000${key}`;
  let format = cache.get(id) as T | undefined;
  if (format === undefined) {
    format = make(locale);
    cache.set(id, format);
  }
  return format;
}

/** The locale's decimal and grouping marks (`.` and `,` in en-US; `,` and `.` in de-DE; `,` and a space in fr-FR). */
export function numberMarks(locale: string = appLocale()): { readonly decimal: string; readonly group: string } {
  const parts = new Intl.NumberFormat(locale, { useGrouping: true }).formatToParts(12345.6);
  return { decimal: parts.find((part) => part.type === 'decimal')?.value ?? '.', group: parts.find((part) => part.type === 'group')?.value ?? ',' };
}
