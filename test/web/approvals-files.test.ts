/**
 * The files of an agent's plan in the approvals inbox, in Debian's Chromium at 1280 and 390 px:
 * an action that needs approval and a create_many (a file field and a line's), each file with its
 * name, size and type, a thumbnail for the image, and its preview (the image full size, the PDF in
 * the browser's viewer) — read with the approver's right to a pending plan's files, audited with
 * the plan. A person who may not decide the plan sees no plan and gets no file. Screenshots go to
 * test/screenshots/ (git-ignored).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate, loadProject } from '../../generator/pipeline.ts';
import { writeOutput } from '../../generator/write.ts';
import type { Registry } from '../../runtime/registry.ts';
import { expectNoSidewaysScroll, LAPTOP, launchChromium, PHONE, SCREENSHOTS, signIn } from '../helpers/browser.ts';
import { moduleTree, removeModuleTrees } from '../helpers/module-trees.ts';
import { onePagePdf } from '../helpers/pdf.ts';
import { startWebTestServer, type WebTestServer } from '../helpers/web-server.ts';

const DOSSIERS = `export default {
  label: 'Dossiers',
  models: {
    dossier: {
      title: 'name',
      fields: {
        name: { kind: 'text', required: true },
        attachments: { kind: 'file', multiple: true, accept: ['application/pdf', 'image/*'], label: 'Attachments' },
        proof: { kind: 'file', label: 'Proof' },
        status: { kind: 'select', options: ['open', 'sealed'], governed: true },
      },
      lines: { pages: { label: 'Pages', fields: { page: { kind: 'file', accept: ['image/png'], label: 'Page' }, note: { kind: 'text' } } } },
      actions: {
        seal: { from: 'open', to: 'sealed', input: { proof: { kind: 'file' } }, needs_approval: true },
      },
    },
  },
  roles: { clerk: { dossier: '*' }, viewer: { dossier: ['get', 'list'] } },
};
`;

/** A 40×30 red PNG. */
const RED_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAACgAAAAeCAIAAADRv8uKAAAAK0lEQVR42u3NMQ0AAAgDsGmZf0t4QQYcTfo3056IWCwWi8VisVgsFov/xgszpEr8j7uwNQAAAABJRU5ErkJggg==', 'base64');
const PDF = onePagePdf('Proof of sealing');
/** Chromium's PDF viewer (its built-in extension). */
const PDF_VIEWER = 'chrome-extension://mhjfbmdgcfjbbpaeojofohoefgiehjai';

let server: WebTestServer;
let browser: Browser;
let admin: string;
let viewer: string;
let plans: { seal: string; createMany: string };
let files: { png: { id: string }; pdf: { id: string } };

const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 15_000 });

async function shot(target: Page, name: string): Promise<void> {
  await target.evaluate(() => window.scrollTo(0, 0));
  await target.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

async function upload(token: string, body: Buffer, type: string, name: string): Promise<{ id: string; name: string; size: number; type: string; sha256: string }> {
  const res = await fetch(`${server.url}/api/files`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': type, 'x-file-name': name }, body: new Uint8Array(body) });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; name: string; size: number; type: string; sha256: string };
}

beforeAll(async () => {
  const project = moduleTree({ dossiers: DOSSIERS });
  const out = join(project, 'generated');
  writeOutput(out, generate(await loadProject(join(project, 'modules')), out));
  const registry = ((await import(pathToFileURL(join(out, 'registry.ts')).href)) as { registry: Registry }).registry;
  server = await startWebTestServer({ registry });
  browser = await launchChromium();
  admin = await server.login();
  viewer = await server.addPerson('vera', ['viewer']);
  const issued = await server.request('POST', '/api/auth/agent-token', { scopes: ['dossier.*'], label: 'Filing bot' }, admin);
  expect(issued.status).toBe(200);
  const agent = issued.body.token as string;
  const created = await server.command(admin, 'dossier.create', { name: 'Flat 7' });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const record = created.body.value.id as string;
  const png = await upload(agent, RED_PNG, 'image/png', 'floor plan.png');
  const pdf = await upload(agent, PDF, 'application/pdf', 'seal proof.pdf');
  files = { png, pdf };
  const seal = await server.command(agent, 'dossier.seal', { id: record, proof: pdf.id });
  expect(seal.status, JSON.stringify(seal.body)).toBe(202);
  const createMany = await server.command(agent, 'dossier.create_many', { records: [{ name: 'Flat 8', attachments: [png.id, pdf.id], pages: [{ page: png.id, note: 'ground floor' }] }] });
  expect(createMany.status, JSON.stringify(createMany.body)).toBe(202);
  plans = { seal: seal.body.plan_id, createMany: createMany.body.plan_id };
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  removeModuleTrees();
});

/** The files a plan's card lists under a field's or a line list's label. */
const cardFiles = (target: Page, planId: string) => target.locator(`li#plan-${planId} .file-item`);
const fileIn = (target: Page, planId: string, name: string) => cardFiles(target, planId).filter({ has: target.locator('.file-name', { hasText: name }) });

async function expectPlanFiles(target: Page, width: number): Promise<void> {
  await target.goto('/approvals');
  await target.getByRole('heading', { name: 'Approvals' }).waitFor();
  // The action's plan: its proof, a PDF.
  await poll(() => cardFiles(target, plans.seal).count()).toBe(1);
  expect(await fileIn(target, plans.seal, 'seal proof.pdf').locator('.file-meta').innerText()).toBe(`${PDF.length} B · application/pdf`);
  // The create_many: the record's two attachments and the line's page.
  await poll(() => cardFiles(target, plans.createMany).count()).toBe(3);
  const pngs = fileIn(target, plans.createMany, 'floor plan.png');
  expect(await pngs.count()).toBe(2);
  for (const item of await pngs.all()) {
    expect(await item.locator('.file-meta').innerText()).toBe(`${RED_PNG.length} B · image/png`);
    // The thumbnail: downloaded with the approver's right to the pending plan's files.
    await poll(() => item.locator('img.file-thumb').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(40);
  }
  await target.locator(`li#plan-${plans.createMany}`).getByText('ground floor').waitFor();
  await expectNoSidewaysScroll(target);
  await shot(target, `approvals-files-${width}`);

  await pngs.first().getByRole('button', { name: 'floor plan.png' }).click();
  const image = target.getByRole('dialog', { name: 'floor plan.png' });
  await poll(() => image.getByRole('img', { name: 'floor plan.png' }).evaluate((img: HTMLImageElement) => [img.complete, img.naturalWidth, img.naturalHeight])).toEqual([true, 40, 30]);
  await shot(target, `approvals-files-image-${width}`);
  await image.getByRole('button', { name: 'Close' }).click();
  await poll(() => target.getByRole('dialog').count()).toBe(0);

  await fileIn(target, plans.seal, 'seal proof.pdf').getByRole('button', { name: 'seal proof.pdf' }).click();
  const frame = target.getByRole('dialog', { name: 'seal proof.pdf' }).locator('iframe[title="seal proof.pdf"]');
  await frame.waitFor();
  const src = await frame.getAttribute('src');
  expect(src).toMatch(/^blob:/);
  const blobFrame = target.frames().find((candidate) => candidate.url() === src);
  expect(await blobFrame!.evaluate(() => document.contentType)).toBe('application/pdf');
  await poll(async () => blobFrame!.childFrames().map((child) => child.url().startsWith(`${PDF_VIEWER}/`))).toEqual([true]);
  await poll(() =>
    blobFrame!.childFrames()[0]!.evaluate(() => (document.querySelector('pdf-viewer')?.shadowRoot?.querySelector('viewer-toolbar')?.shadowRoot?.querySelector('#progress') as { value?: number } | null)?.value ?? 0),
  ).toBe(100);
  await expectNoSidewaysScroll(target);
  await shot(target, `approvals-files-pdf-${width}`);
  await target.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
  await poll(() => target.getByRole('dialog').count()).toBe(0);
}

const downloadsAudited = () =>
  server.inspect((db) => db.prepare(`select plan_id, input from rms_audit where command = 'dossier.download_file' and username = 'admin' order by id`).all()) as { plan_id: string; input: string }[];

describe('a plan that attaches files, in the approvals inbox', () => {
  it('lists each file with name, size, type and a thumbnail, and previews the image and the PDF, at 1280 px', async () => {
    const context = await browser.newContext({ baseURL: server.url, viewport: LAPTOP });
    const page = await context.newPage();
    await signIn(page);
    await expectPlanFiles(page, 1280);
    await context.close();
    // Each read of a plan's file is audited with the plan.
    const audited = downloadsAudited();
    expect(audited.length).toBeGreaterThan(0);
    for (const row of audited) expect([plans.seal, plans.createMany]).toContain(row.plan_id);
    expect(new Set(audited.map((row) => JSON.parse(row.input).file_id))).toEqual(new Set([files.png.id, files.pdf.id]));
  });

  it('does the same at 390 px without sideways scrolling', async () => {
    const context = await browser.newContext({ baseURL: server.url, viewport: PHONE });
    const page = await context.newPage();
    await signIn(page);
    await expectPlanFiles(page, 390);
    await context.close();
  });

  it('shows a person who may not decide the plans no plan, and gives them no file', async () => {
    const context = await browser.newContext({ baseURL: server.url, viewport: LAPTOP });
    const page = await context.newPage();
    await signIn(page, 'vera', 'vera-test-password');
    await page.goto('/approvals');
    // Reading only, she decides nothing: the app has no inbox for her.
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    expect(await page.locator('li.plan, .file-item').count()).toBe(0);
    await context.close();
    for (const file of [files.png, files.pdf]) expect((await fetch(`${server.url}/api/files/${file.id}`, { headers: { authorization: `Bearer ${viewer}` } })).status).toBe(404);
  });
});
