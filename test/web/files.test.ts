/**
 * File fields in the web app, in Debian's Chromium at 1280 and 390 px: adding files with the
 * picker and by dropping them (a thumbnail for an image, name, size and type for each), a hostile
 * name shown as text,
 * the progress of a 30 MB upload on a throttled link and cancelling one, removing a file, the
 * record page listing its files, and previewing them in the page (an image full size, a PDF in the
 * browser's viewer; an SVG only downloads). Screenshots go to test/screenshots/ (git-ignored).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, loadProject } from '../../generator/pipeline.ts';
import { writeOutput } from '../../generator/write.ts';
import type { Registry } from '../../runtime/registry.ts';
import { expectNoSidewaysScroll, LAPTOP, launchChromium, PHONE, SCREENSHOTS, signIn } from '../helpers/browser.ts';
import { onePagePdf } from '../helpers/pdf.ts';
import { moduleTree, removeModuleTrees } from '../helpers/module-trees.ts';
import { startWebTestServer, type WebTestServer } from '../helpers/web-server.ts';

const FOLDERS = `export default {
  label: 'Folders',
  models: {
    folder: {
      title: 'name',
      fields: {
        name: { kind: 'text', required: true },
        attachments: { kind: 'file', multiple: true, accept: ['application/pdf', 'image/*'], max_size: '40MB', label: 'Attachments' },
      },
    },
  },
};
`;

/** A real 1×1 PNG (a thumbnail must decode). */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const HOSTILE = '<img src=x onerror="window.pwned=1">\u202Efdp.pdf';
/** A 40×30 red PNG: the preview shows it at its own size. */
const RED_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAACgAAAAeCAIAAADRv8uKAAAAK0lEQVR42u3NMQ0AAAgDsGmZf0t4QQYcTfo3056IWCwWi8VisVgsFov/xgszpEr8j7uwNQAAAABJRU5ErkJggg==',
  'base64',
);
/** Chromium's PDF viewer (its built-in extension). */
const PDF_VIEWER = 'chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai';
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>window.pwned=2</script><rect width="10" height="10"/></svg>');

let server: WebTestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;

const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 15_000 });

async function shot(name: string, target: Page = page): Promise<void> {
  await target.evaluate(() => window.scrollTo(0, 0));
  await target.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** The files of the form, or of the record's details (its history lists files too). */
const files = (target: Page = page) => target.locator('form .file-item, dl.details .file-item');
/** The file listed under this name (uploads end, and are listed, in any order). */
const fileNamed = (name: string, target: Page = page) => files(target).filter({ has: target.locator('.file-name', { hasText: name }) });

beforeAll(async () => {
  const project = moduleTree({ folders: FOLDERS });
  const out = join(project, 'generated');
  writeOutput(out, generate(await loadProject(join(project, 'modules')), out));
  const registry = ((await import(pathToFileURL(join(out, 'registry.ts')).href)) as { registry: Registry }).registry;
  server = await startWebTestServer({ registry });
  browser = await launchChromium();
  context = await browser.newContext({ baseURL: server.url, viewport: LAPTOP });
  page = await context.newPage();
  await signIn(page);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  removeModuleTrees();
});

describe('a file field', () => {
  let folderUrl: string;

  it('uploads by the picker: a thumbnail for the image, name, size and type; a hostile name stays text', async () => {
    await page.goto('/records/folder/new');
    await page.getByRole('heading', { name: 'New folder' }).waitFor();
    await page.getByLabel('Name').fill('Lease 7');
    await page.locator('input[type=file]').setInputFiles([
      { name: 'scan.png', mimeType: 'image/png', buffer: PNG },
      { name: HOSTILE, mimeType: 'application/pdf', buffer: PDF },
    ]);
    await poll(() => files().count()).toBe(2);
    expect(await fileNamed('scan.png').locator('.file-meta').innerText()).toBe(`${PNG.length} B · image/png`);
    // The thumbnail decodes (from the bytes picked: no record holds the upload yet, so the server gives it to no one).
    await poll(() => fileNamed('scan.png').locator('img.file-thumb').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
    // The server kept the name without its right-to-left override; the page shows it as text.
    expect(await fileNamed('fdp.pdf').locator('.file-name').innerText()).toBe('<img src=x onerror="window.pwned=1">fdp.pdf');
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    await shot('files-form-1280');
    await page.getByRole('button', { name: /^Create/ }).click();
    await page.waitForURL(/\/records\/folder\/[0-9A-Z]{26}$/);
    folderUrl = new URL(page.url()).pathname;
    await poll(() => files().count()).toBe(2);
    // On the record, the thumbnail comes from the server: the record holds the file now.
    await poll(() => fileNamed('scan.png').locator('img.file-thumb').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
    await expectNoSidewaysScroll(page);
    await shot('files-record-1280');
  });

  it('shows the progress of a 30 MB upload on a slow link, and cancels one', { timeout: 90_000 }, async () => {
    await page.goto(`${folderUrl}/edit`);
    await poll(() => files().count()).toBe(2);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 15 * 1024 * 1024 });
    // A file on disk: the picker reads it from there, as it would a person's.
    const dir = mkdtempSync(join(tmpdir(), 'rmsgen-upload-'));
    const big = join(dir, 'big.pdf');
    writeFileSync(big, Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(30 * 1024 * 1024, 32)]));
    await page.locator('input[type=file]').setInputFiles(big);
    const progress = page.locator('.file-progress progress');
    await progress.waitFor();
    await poll(async () => Number(await progress.getAttribute('value'))).toBeGreaterThan(0.05);
    expect(Number(await progress.getAttribute('value'))).toBeLessThan(1);
    await shot('files-progress-1280');
    await poll(() => files().count()).toBe(3);
    expect(await fileNamed('big.pdf').locator('.file-meta').innerText()).toBe('30 MB · application/pdf');

    const cancelled = join(dir, 'cancelled.pdf');
    writeFileSync(cancelled, Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(30 * 1024 * 1024, 33)]));
    await page.locator('input[type=file]').setInputFiles(cancelled);
    await page.locator('.file-progress').getByRole('button', { name: 'Cancel' }).click();
    await poll(() => page.locator('.file-progress').count()).toBe(0);
    expect(await files().count()).toBe(3);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes a file dropped on the field', async () => {
    await page.evaluate(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['%PDF-1.4\n% dropped\n'], 'dropped.pdf', { type: 'application/pdf' }));
      const zone = document.querySelector('.file-drop')!;
      zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    });
    await poll(() => fileNamed('dropped.pdf').count()).toBe(1);
    expect(await fileNamed('dropped.pdf').locator('.file-meta').innerText()).toBe('19 B · application/pdf');
    await page.getByRole('button', { name: 'Remove dropped.pdf' }).click();
  });

  it('removes a file and saves the rest', async () => {
    await page.getByRole('button', { name: 'Remove big.pdf' }).click();
    await page.getByRole('button', { name: 'Remove scan.png' }).click();
    await poll(() => files().count()).toBe(1);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL((url) => url.pathname === folderUrl);
    await poll(() => files().count()).toBe(1);
    expect(await files().locator('.file-name').innerText()).toContain('fdp.pdf');
  });

  it('previews an image full size and a PDF in the page; an SVG only downloads', async () => {
    await page.goto(`${folderUrl}/edit`);
    await poll(() => files().count()).toBe(1);
    await page.locator('input[type=file]').setInputFiles([
      { name: 'red.png', mimeType: 'image/png', buffer: RED_PNG },
      { name: 'lease.pdf', mimeType: 'application/pdf', buffer: onePagePdf('Lease of flat 7') },
      { name: 'logo.svg', mimeType: 'image/svg+xml', buffer: SVG },
    ]);
    await poll(() => files().count()).toBe(4);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL((url) => url.pathname === folderUrl);
    await poll(() => files().count()).toBe(4);
    await expectPreviews(page, 'files-preview', 1280);
  });

  it('lists the files at 390 px without sideways scrolling', async () => {
    const phone = await browser.newContext({ baseURL: server.url, viewport: PHONE });
    const small = await phone.newPage();
    await signIn(small);
    await small.goto(folderUrl);
    await poll(() => files(small).count()).toBe(4);
    await expectNoSidewaysScroll(small);
    await shot('files-record-390', small);
    await expectPreviews(small, 'files-preview', 390);
    await phone.close();
  });
});

/**
 * Clicking a file's name: a PNG opens a dialog with the image at its own size, a PDF one with the
 * browser's viewer in a frame (its content the PDF's bytes, typed application/pdf); an SVG opens no
 * dialog but downloads (its script never runs in the page).
 */
async function expectPreviews(target: Page, name: string, width: number): Promise<void> {
  await fileNamed('red.png', target).getByRole('button', { name: 'red.png' }).click();
  const image = target.getByRole('dialog', { name: 'red.png' });
  await image.getByText(`${RED_PNG.length} B · image/png`).waitFor();
  await poll(() => image.getByRole('img', { name: 'red.png' }).evaluate((img: HTMLImageElement) => [img.complete, img.naturalWidth, img.naturalHeight])).toEqual([true, 40, 30]);
  await expectNoSidewaysScroll(target);
  await shot(`${name}-image-${width}`, target);
  await image.getByRole('button', { name: 'Close' }).click();
  await poll(() => target.getByRole('dialog').count()).toBe(0);

  await fileNamed('lease.pdf', target).getByRole('button', { name: 'lease.pdf' }).click();
  const pdf = target.getByRole('dialog', { name: 'lease.pdf' });
  const frame = pdf.locator('iframe[title="lease.pdf"]');
  await frame.waitFor();
  const src = await frame.getAttribute('src');
  expect(src).toMatch(/^blob:/);
  // The frame holds the PDF (its document typed application/pdf, not one of the page's), and
  // Chromium shows it in its PDF viewer (headless too: the screenshots show the page's text).
  // The iframe element comes before its frame has navigated to the blob (a loaded machine shows it).
  await poll(async () => target.frames().some((candidate) => candidate.url() === src)).toBe(true);
  const blobFrame = target.frames().find((candidate) => candidate.url() === src);
  await poll(() => blobFrame!.evaluate(() => document.contentType)).toBe('application/pdf');
  await poll(async () => blobFrame!.childFrames().map((viewer) => viewer.url().startsWith(`${PDF_VIEWER}/`))).toEqual([true]);
  await blobFrame!.childFrames()[0]!.waitForLoadState('load');
  // Loaded: the viewer's progress bar at 100 (its toolbar shows the page count then).
  const loaded = () =>
    blobFrame!.childFrames()[0]!.evaluate(() => (document.querySelector('pdf-viewer')?.shadowRoot?.querySelector('viewer-toolbar')?.shadowRoot?.querySelector('#progress') as { value?: number } | null)?.value ?? 0);
  await poll(loaded).toBe(100);
  await expectNoSidewaysScroll(target);
  await shot(`${name}-pdf-${width}`, target);
  await pdf.getByRole('button', { name: 'Close' }).click();
  await poll(() => target.getByRole('dialog').count()).toBe(0);

  const download = target.waitForEvent('download');
  await fileNamed('logo.svg', target).getByRole('button', { name: 'logo.svg' }).click();
  expect((await download).suggestedFilename()).toBe('logo.svg');
  expect(await target.getByRole('dialog').count()).toBe(0);
  expect(await target.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
}
