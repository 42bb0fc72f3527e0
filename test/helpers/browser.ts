/**
 * What the browser tests share: Debian's Chromium, launched by playwright-core (which never
 * downloads a browser of its own), the two widths the web app is tested at, and the steps every
 * suite takes the same way.
 */
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { ADMIN_PASSWORD } from './server.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = join(import.meta.dirname, '..', 'screenshots');
export const LAPTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** The system Chromium, headless, with a fresh temporary profile. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
  });
}

/** Signs in through the sign-in form at `path`; returns once the app shows itself signed in. */
export async function signIn(target: Page, username = 'admin', password = ADMIN_PASSWORD, path = '/'): Promise<void> {
  await target.goto(path);
  await target.getByLabel('Username').fill(username);
  await target.getByLabel('Password').fill(password);
  await target.getByRole('button', { name: 'Sign in' }).click();
  // The menu is hidden at a phone width, but it is there once the app is signed in.
  await target.locator('nav#sidebar').waitFor({ state: 'attached' });
}

export async function expectNoSidewaysScroll(target: Page): Promise<void> {
  const { scrollWidth, innerWidth } = await target.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}
