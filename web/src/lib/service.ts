/**
 * What the service calls itself (`GET /api/service`, answered before sign-in): its name in the top
 * bar and the page titles, its colour on the top bar, and the locale amounts and dates are written
 * in (lib/locale.ts). Read once when the app starts; until then, and when it cannot be read, the
 * defaults (`DEFAULT_SERVICE_INFO`: "Records", the usual bar, the browser's locale).
 */
import { get } from './api.ts';
import { setAppLocale } from './locale.ts';
import { DEFAULT_SERVICE_INFO, type ServiceAnswer, type ServiceInfo } from './types.ts';

let current: ServiceInfo = DEFAULT_SERVICE_INFO;

export function serviceName(): string {
  return current.name;
}

/** Relative luminance of `#rrggbb` (WCAG 2), from 0 (black) to 1 (white). */
export function luminance(colour: string): number {
  const channel = (at: number) => {
    const value = parseInt(colour.slice(at, at + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/**
 * Whether text on `colour` reads better dark than light: dark text when it contrasts more with
 * the colour than white does (WCAG contrast ratios against #1c2230 and #ffffff).
 */
export function wantsDarkText(colour: string): boolean {
  const bar = luminance(colour);
  const dark = luminance('#1c2230');
  return (bar + 0.05) / (dark + 0.05) > 1.05 / (bar + 0.05);
}

function apply(info: ServiceInfo): void {
  current = info;
  setAppLocale(info.locale);
  const root = document.documentElement;
  if (info.locale) root.lang = info.locale;
  root.style.setProperty('--bar', info.colour);
  root.classList.toggle('bar-light', wantsDarkText(info.colour));
  let theme = document.querySelector<HTMLMetaElement>('meta[name="theme-color"]');
  if (!theme) {
    theme = document.createElement('meta');
    theme.name = 'theme-color';
    document.head.append(theme);
  }
  theme.content = info.colour;
}

/** Reads the service's identity and applies it; the defaults stay when it cannot be read. */
export async function loadService(): Promise<void> {
  try {
    const info = await get<ServiceAnswer>('/api/service');
    if (typeof info?.name === 'string' && /^#[0-9a-f]{6}$/i.test(info.colour)) apply({ name: info.name, colour: info.colour, locale: typeof info.locale === 'string' ? info.locale : null });
  } catch {
    // An older server without the endpoint, or none reachable: the defaults.
  }
}
