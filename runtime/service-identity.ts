/**
 * What a service calls itself for people: its name and colour in the web app's top bar and title,
 * and the locale the app writes amounts and dates in (`serve --name`, `--colour`, `--locale`).
 * Carried by `GET /api/service` (before sign-in: the sign-in page shows them) and `GET /api/meta`.
 */
import { DEFAULT_SERVICE_INFO, type ServiceInfo } from './api-shapes.ts';

export { DEFAULT_SERVICE_INFO };

/** Longest name: it has to fit the app's top bar on a phone. */
export const MAX_SERVICE_NAME_LENGTH = 60;

/** A setting that cannot be used, with the reason in words (the CLI prints it and stops). */
export class ServiceSettingError extends Error {}

export interface ServiceSettings {
  readonly name?: string | undefined;
  readonly colour?: string | undefined;
  readonly locale?: string | undefined;
}

/**
 * The service's identity from its settings (each absent one the default), or a `ServiceSettingError`
 * naming the first that is wrong: a name that is empty, longer than 60 characters or holds control
 * characters; a colour that is not `#rrggbb`; a locale that is no BCP 47 tag, or one this Node.js
 * has no data for. The locale comes back in its canonical form (`en-gb` → `en-GB`).
 */
export function serviceInfo(settings: ServiceSettings, names: { name: string; colour: string; locale: string } = { name: 'name', colour: 'colour', locale: 'locale' }): ServiceInfo {
  const name = settings.name?.trim();
  if (name !== undefined) {
    if (name === '') throw new ServiceSettingError(`invalid ${names.name}: it is empty; give the name people know the service by`);
    if (name.length > MAX_SERVICE_NAME_LENGTH) throw new ServiceSettingError(`invalid ${names.name} ${JSON.stringify(name)}: at most ${MAX_SERVICE_NAME_LENGTH} characters`);
    if (/\p{Cc}/u.test(name)) throw new ServiceSettingError(`invalid ${names.name} ${JSON.stringify(name)}: no control characters (line breaks, tabs)`);
  }
  const colour = settings.colour?.trim();
  if (colour !== undefined && !/^#[0-9a-fA-F]{6}$/.test(colour)) throw new ServiceSettingError(`invalid ${names.colour} ${colour}: write it as #rrggbb, like #1f2735`);
  const locale = settings.locale === undefined ? undefined : canonicalLocale(settings.locale.trim(), names.locale);
  return {
    name: name ?? DEFAULT_SERVICE_INFO.name,
    colour: colour?.toLowerCase() ?? DEFAULT_SERVICE_INFO.colour,
    locale: locale ?? DEFAULT_SERVICE_INFO.locale,
  };
}

function canonicalLocale(value: string, optionName: string): string {
  let canonical: string | undefined;
  try {
    canonical = Intl.getCanonicalLocales(value)[0];
  } catch {
    canonical = undefined;
  }
  if (!canonical) throw new ServiceSettingError(`invalid ${optionName} ${value}: write a locale tag like en-GB, de-DE or fr-CH`);
  if (Intl.DateTimeFormat.supportedLocalesOf([canonical]).length === 0 || Intl.NumberFormat.supportedLocalesOf([canonical]).length === 0) {
    throw new ServiceSettingError(`invalid ${optionName} ${value}: no locale data for it; use one like en-GB, de-DE or fr-CH`);
  }
  return canonical;
}
