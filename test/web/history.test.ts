/**
 * Record history and revert in the web app, in Debian's Chromium against the real
 * server: an agent changes a lead over REST, a person finds the change in the lead's History (the
 * agent marked, by its label), reverts it after confirming what is put back, and sees the record
 * back and the revert entry; a revert refused because the field changed again is shown in the
 * server's words; long histories page, and links to one entry (from the audit trail, whose
 * changes are shown without reads by default) find its page and highlight it; the Approvals inbox
 * shows what an agent's update and revert would change, from → to, every record an agent's
 * delete_many would delete, and each record of its other bulk plans with its change. At 1280 and 390 px, without
 * sideways scrolling. Screenshots go to test/screenshots/ (git-ignored).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPerson } from '../../runtime/auth/index.ts';
import { openDatabase } from '../../runtime/db/connect.ts';
import { CHROMIUM, expectNoSidewaysScroll, LAPTOP, launchChromium, PHONE, SCREENSHOTS, signIn } from '../helpers/browser.ts';
import { ADMIN_PASSWORD, startWebTestServer, type WebTestServer } from '../helpers/web-server.ts';


let server: WebTestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let adminToken: string;
/** Agent tokens made over REST by admin: scopes lead.* ("Pipeline bot") and invoice.* ("Billing bot"). */
let leadBot: string;
let invoiceBot: string;
let acmeId: string;
let globexId: string;
/** The lead the agent changes and the person reverts, and the agent's change of it. */
let relaunchId: string;
let agentChangeId: string;
/** A lead with 26 history entries. */
let longId: string;

const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 10_000 });

async function shot(name: string, target: Page = page, fullPage = true): Promise<void> {
  if (fullPage) await target.evaluate(() => window.scrollTo(0, 0));
  await target.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage });
}

async function newPage(viewport = LAPTOP): Promise<Page> {
  const created = await context.newPage();
  created.setDefaultTimeout(10_000);
  await created.setViewportSize(viewport);
  return created;
}

async function ok(token: string, commandId: string, input: unknown): Promise<any> {
  const res = await server.command(token, commandId, input);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.value;
}

async function proposed(token: string, commandId: string, input: unknown): Promise<string> {
  const res = await server.command(token, commandId, input);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.plan_id as string;
}

/** A record's history entries over REST (admin), newest first. */
async function historyOf(model: string, id: string): Promise<{ change_id: string; at: string; changes: Record<string, unknown> }[]> {
  return (await ok(adminToken, `${model}.history`, { id, limit: 100 })).rows;
}

/** Moves a history entry back in time (entries keep their order: it is by change id). */
async function setAt(changeId: string, at: Date): Promise<void> {
  const db = openDatabase(`sqlite:${server.dbFile}`);
  try {
    await db('rms_history').where({ id: changeId }).update({ at: at.toISOString() });
  } finally {
    await db.destroy();
  }
}

async function makeAgentToken(scopes: string[], label: string): Promise<string> {
  const issued = await server.request('POST', '/api/auth/agent-token', { scopes, label }, adminToken);
  expect(issued.status).toBe(200);
  return issued.body.token as string;
}

/** The exact time the app shows on hover: en-US, UTC (the browser context's locale and zone). */
const exactTime = (iso: string) =>
  new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone: 'UTC' }).format(Date.parse(iso));

const historySection = (target: Page = page) => target.getByRole('region', { name: 'History' });
const entries = (target: Page = page) => historySection(target).locator('li.history-entry');
const summaryOf = (entry: Locator) => entry.locator('.history-summary').innerText();

/** Each line of a from → to list as [label, values]. */
async function lines(scope: Locator): Promise<[string, string][]> {
  // Waits for the list (a dialog that is opening, a card whose record is being read).
  await scope.locator('dl.changes .change').first().waitFor();
  return scope.locator('dl.changes .change').evaluateAll((items) =>
    items.map((item) => {
      const dd = item.querySelector('dd') as HTMLElement;
      // A note under the values (a plan's "changed since") is read on its own.
      const note = dd.querySelector<HTMLElement>('.change-note');
      const text = note ? dd.innerText.replace(note.innerText, '') : dd.innerText;
      return [(item.querySelector('dt') as HTMLElement).innerText.trim(), text.trim()] as [string, string];
    }),
  );
}

const detail = (label: string, target: Page = page) => target.locator('dl.details .detail', { has: target.locator('dt', { hasText: new RegExp(`^${label.replace(/[()]/g, '\\$&')}$`) }) }).locator('dd');
const notice = (target: Page = page) => target.locator('.notice');

describe.skipIf(!existsSync(CHROMIUM))('record history in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    server = await startWebTestServer();
    adminToken = await server.login();
    const db = openDatabase(`sqlite:${server.dbFile}`);
    try {
      await createPerson(db, { username: 'acc', password: 'acc-password-1', roles: ['accountant'] });
      await createPerson(db, { username: 'sam', password: 'sam-password-1', roles: ['sales'] });
    } finally {
      await db.destroy();
    }
    leadBot = await makeAgentToken(['lead.*'], 'Pipeline bot');
    invoiceBot = await makeAgentToken(['invoice.*'], 'Billing bot');
    acmeId = (await ok(adminToken, 'party.create', { name: 'Acme GmbH', kind: 'company' })).id;
    globexId = (await ok(adminToken, 'party.create', { name: 'Globex Ltd', kind: 'company' })).id;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: LAPTOP, baseURL: server.url, locale: 'en-US', timezoneId: 'UTC' });
    page = await newPage();
    await signIn(page);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("shows an agent's change in History, marked as the agent's, and reverts it after confirming", async () => {
    relaunchId = (await ok(adminToken, 'lead.create', { title: 'Website relaunch', party: acmeId, expected_revenue: 1_200_000, probability: 40, close_date: '2031-06-30', hot: false })).id;
    await ok(adminToken, 'lead.update', { id: relaunchId, party: globexId });
    // The agent, over REST.
    const changed = await ok(leadBot, 'lead.update', { id: relaunchId, expected_revenue: 1_500_000, close_date: '2031-09-30', hot: true });
    expect(changed).toMatchObject({ expected_revenue: 1_500_000, close_date: '2031-09-30', hot: true });
    const [byAgent, partyEdit, created] = await historyOf('lead', relaunchId);
    agentChangeId = byAgent!.change_id;
    await setAt(created!.change_id, new Date(Date.now() - 3 * 3600_000));
    await setAt(partyEdit!.change_id, new Date(Date.now() - 3 * 60_000));

    await page.goto(`/records/lead/${relaunchId}`);
    await page.getByRole('heading', { name: /Website relaunch/ }).waitFor();
    await poll(() => entries().count()).toBe(3);
    expect(await historySection().locator('h2').innerText()).toBe('History 3');
    const [agentEntry, partyEntry, createEntry] = [entries().nth(0), entries().nth(1), entries().nth(2)];

    // The agent's change: its label with a visible agent marker (and whose token it used), when, each field from → to.
    expect(await summaryOf(agentEntry)).toBe('AGENT Pipeline bot (admin) edited · just now');
    expect(await agentEntry.locator('.tag-agent').textContent()).toBe('agent');
    const when = agentEntry.locator('.history-summary time');
    expect(await when.getAttribute('title')).toBe(exactTime(byAgent!.at));
    expect(await when.getAttribute('datetime')).toBe(byAgent!.at);
    expect(await lines(agentEntry)).toEqual([
      ['Expected revenue', '12,000.00 → 15,000.00'],
      ['Close date', 'Jun 30, 2031 → Sep 30, 2031'],
      ['Hot', 'No → Yes'],
    ]);
    expect(await agentEntry.getByRole('button', { name: 'Revert' }).count()).toBe(1);
    // A person's edit of a ref: the parties by their names, linked. A party the page does not hold
    // shows by its id until its title comes (seen in CI under load): waited for, not read once.
    expect(await summaryOf(partyEntry)).toBe('admin edited · 3 minutes ago');
    await poll(() => lines(partyEntry)).toEqual([['Party', 'Acme GmbH → Globex Ltd']]);
    expect(await partyEntry.getByRole('link', { name: 'Acme GmbH' }).getAttribute('href')).toBe(`/records/party/${acmeId}`);
    expect(await partyEntry.getByRole('link', { name: 'Globex Ltd' }).getAttribute('href')).toBe(`/records/party/${globexId}`);
    // A create: what each field was set to; nothing to revert.
    expect(await summaryOf(createEntry)).toBe('admin created this lead · 3 hours ago');
    await poll(() => lines(createEntry)).toEqual([
      ['Title', 'Website relaunch'],
      ['Party', 'Acme GmbH'],
      ['Stage', 'New'],
      ['Expected revenue', '12,000.00'],
      ['Probability (%)', '40'],
      ['Close date', 'Jun 30, 2031'],
      ['Hot', 'No'],
    ]);
    expect(await createEntry.getByRole('button', { name: 'Revert' }).count()).toBe(0);
    expect(await detail('Expected revenue').innerText()).toBe('15,000.00');
    await expectNoSidewaysScroll(page);
    await shot('h01-history-agent-change');

    // Revert asks first, naming what is put back: field, current → old value. Cancel changes nothing.
    await agentEntry.getByRole('button', { name: 'Revert' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revert this change?' });
    expect(await dialog.locator('.modal-body p').first().innerText()).toBe('This puts back what agent “Pipeline bot” changed just now:');
    expect(await lines(dialog)).toEqual([
      ['Expected revenue', '15,000.00 → 12,000.00'],
      ['Close date', 'Sep 30, 2031 → Jun 30, 2031'],
      ['Hot', 'Yes → No'],
    ]);
    await expectNoSidewaysScroll(page);
    await shot('h02-revert-confirm', page, false);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect((await ok(adminToken, 'lead.get', { id: relaunchId })).expected_revenue).toBe(1_500_000);

    await agentEntry.getByRole('button', { name: 'Revert' }).click();
    await dialog.getByRole('button', { name: 'Revert' }).click();
    await notice().getByText('Reverted: Expected revenue, Close date and Hot are back as before.').waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    // The record is back, on the page and on the server.
    await poll(() => detail('Expected revenue').innerText()).toBe('12,000.00');
    expect(await detail('Close date').innerText()).toBe('Jun 30, 2031');
    expect(await detail('Hot').innerText()).toBe('No');
    expect(await ok(adminToken, 'lead.get', { id: relaunchId })).toMatchObject({ expected_revenue: 1_200_000, close_date: '2031-06-30', hot: false, party: globexId });
    // The revert entry on top, naming the change it undid; that change says who undid it and offers no second revert.
    await poll(() => entries().count()).toBe(4);
    const revertEntry = entries().nth(0);
    expect(await summaryOf(revertEntry)).toBe('admin reverted a change · just now');
    expect(await revertEntry.locator('.history-note').innerText()).toBe('Reverts the edit by agent “Pipeline bot” just now.');
    expect(await revertEntry.getByRole('link', { name: 'the edit by agent “Pipeline bot” just now' }).getAttribute('href')).toBe(`/records/lead/${relaunchId}#change-${agentChangeId}`);
    expect(await lines(revertEntry)).toEqual([
      ['Expected revenue', '15,000.00 → 12,000.00'],
      ['Close date', 'Sep 30, 2031 → Jun 30, 2031'],
      ['Hot', 'Yes → No'],
    ]);
    expect(await revertEntry.getByRole('button', { name: 'Revert' }).count()).toBe(1);
    const undone = entries().nth(1);
    expect(await undone.locator('.history-note').innerText()).toBe('Reverted by admin just now.');
    expect(await undone.getByRole('button', { name: 'Revert' }).count()).toBe(0);
    expect((await historyOf('lead', relaunchId))[0]).toMatchObject({ reverts: agentChangeId });
    await expectNoSidewaysScroll(page);
    await shot('h03-history-reverted');

    // The revert's link goes to the change it undid, on the same page: highlighted.
    await revertEntry.getByRole('link', { name: /the edit by/ }).click();
    await poll(() => page.locator('li.history-entry.highlighted').getAttribute('id')).toBe(`change-${agentChangeId}`);
    expect(new URL(page.url()).hash).toBe(`#change-${agentChangeId}`);
  });

  it('shows a revert refused because the field changed again in the server’s words, and changes nothing', async () => {
    const id = (await ok(adminToken, 'lead.create', { title: 'Support renewal', probability: 20 })).id;
    await ok(leadBot, 'lead.update', { id, probability: 50 });
    const [byAgent] = await historyOf('lead', id);
    await page.goto(`/records/lead/${id}`);
    await poll(() => entries().count()).toBe(2);
    expect(await lines(entries().nth(0))).toEqual([['Probability (%)', '20 → 50']]);
    // Someone changes the same field while the page is open.
    await ok(adminToken, 'lead.update', { id, probability: 70 });
    await entries().nth(0).getByRole('button', { name: 'Revert' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revert this change?' });
    expect(await lines(dialog)).toEqual([['Probability (%)', '50 → 20']]);
    await dialog.getByRole('button', { name: 'Revert' }).click();

    const refusal = historySection().getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.locator('.history-refusal-message').innerText()).toBe(`lead ${id} changed since change ${byAgent!.change_id}`);
    expect(await refusal.locator('p.small').innerText()).toBe('Nothing was reverted: the record changed again after that change. Its latest changes are listed below.');
    expect(await page.getByRole('dialog').count()).toBe(0);
    // The record as it is: 70 on the server and, read again, on the page; the later change is listed.
    expect((await ok(adminToken, 'lead.get', { id })).probability).toBe(70);
    await poll(() => detail('Probability (%)').innerText()).toBe('70');
    await poll(() => entries().count()).toBe(3);
    expect(await summaryOf(entries().nth(0))).toBe('admin edited · just now');
    expect(await lines(entries().nth(0))).toEqual([['Probability (%)', '50 → 70']]);
    expect(await historyOf('lead', id)).toHaveLength(3);
    expect(await notice().count()).toBe(0);
    await expectNoSidewaysScroll(page);
    await shot('h04-revert-conflict');
  });

  it('pages through a long history, and a link to an entry on a later page opens that page and highlights it', async () => {
    longId = (await ok(adminToken, 'lead.create', { title: 'Long history', probability: 0 })).id;
    for (let value = 1; value <= 25; value += 1) await ok(adminToken, 'lead.update', { id: longId, probability: value });
    const all = await historyOf('lead', longId);
    expect(all).toHaveLength(26);
    await page.goto(`/records/lead/${longId}`);
    const pager = historySection().getByRole('navigation', { name: 'History pages' });
    await poll(() => pager.locator('.pager-range').innerText()).toBe('1–10 of 26');
    expect(await entries().count()).toBe(10);
    expect(await lines(entries().nth(0))).toEqual([['Probability (%)', '24 → 25']]);
    expect(await pager.getByRole('button', { name: 'Newer' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Older' }).click();
    await poll(() => pager.locator('.pager-range').innerText()).toBe('11–20 of 26');
    expect(await lines(entries().nth(0))).toEqual([['Probability (%)', '14 → 15']]);
    await pager.getByRole('button', { name: 'Older' }).click();
    await poll(() => pager.locator('.pager-range').innerText()).toBe('21–26 of 26');
    expect(await pager.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);
    await pager.getByRole('button', { name: 'Newer' }).click();
    await poll(() => pager.locator('.pager-range').innerText()).toBe('11–20 of 26');

    // Probability 1 → 2 is the 24th entry: on the third page.
    const target = all[23]!;
    expect(target.changes).toEqual({ probability: { from: 1, to: 2 } });
    await page.goto(`/records/lead/${longId}#change-${target.change_id}`);
    await poll(() => pager.locator('.pager-range').innerText()).toBe('21–26 of 26');
    const highlighted = historySection().locator('li.history-entry.highlighted');
    await poll(() => highlighted.count()).toBe(1);
    expect(await highlighted.getAttribute('id')).toBe(`change-${target.change_id}`);
    expect(await highlighted.getAttribute('aria-current')).toBe('true');
    expect(await lines(highlighted)).toEqual([['Probability (%)', '1 → 2']]);
    await poll(() => highlighted.evaluate((element) => {
      const box = element.getBoundingClientRect();
      return box.top >= 0 && box.bottom <= window.innerHeight;
    })).toBe(true);
    await expectNoSidewaysScroll(page);
    await shot('h05-linked-entry-later-page', page, false);
  });

  it('links each change in the audit trail (changes only by default) to its history entry', async () => {
    await page.goto('/audit');
    await page.locator('table.data tbody tr').first().waitFor();
    expect(await page.getByLabel('Show').inputValue()).toBe('');
    expect(await page.getByLabel('Show').locator('option:checked').innerText()).toBe('Changes');
    const commands = await page.locator('table.data tbody td[data-label="Command"]').allInnerTexts();
    expect(commands.filter((name) => /\.(get|list|search|history)$/.test(name))).toEqual([]);
    // The agents' changes: fewer than a page.
    await page.getByLabel('Actor').selectOption('agent');
    await poll(async () => (await page.locator('table.data tbody td[data-label="Who"]').allInnerTexts()).every((who) => who.startsWith('agent'))).toBe(true);
    const row = page.locator('table.data tbody tr', { hasText: 'Pipeline bot' }).filter({ hasText: 'Website relaunch' }).filter({ hasText: 'lead.update' });
    expect(await row.count()).toBe(1);
    const link = row.getByRole('link', { name: 'See the change' });
    expect(await link.getAttribute('href')).toBe(`/records/lead/${relaunchId}#change-${agentChangeId}`);
    await expectNoSidewaysScroll(page);
    await shot('h06-audit-change-links');

    await link.click();
    await page.getByRole('heading', { name: /Website relaunch/ }).waitFor();
    const highlighted = historySection().locator('li.history-entry.highlighted');
    await poll(() => highlighted.getAttribute('id')).toBe(`change-${agentChangeId}`);
    expect(await summaryOf(highlighted)).toBe('AGENT Pipeline bot (admin) edited · just now');
    expect(await highlighted.locator('.history-note').innerText()).toBe('Reverted by admin just now.');

    // Reads are a choice away, history reads among them.
    await page.goto('/audit');
    await page.getByLabel('Show').selectOption({ label: 'Reads' });
    await page.locator('table.data tbody td[data-label="Command"]', { hasText: 'lead.history' }).first().waitFor();
    await poll(async () => (await page.locator('table.data tbody td[data-label="Command"]').allInnerTexts()).every((name) => /\.(get|list|search|history)$/.test(name))).toBe(true);
    expect(await page.getByRole('link', { name: 'See the change' }).count()).toBe(0);
  });

  it("shows in the Approvals inbox what an agent's update and revert would change, from → to", async () => {
    const invoice = await ok(adminToken, 'invoice.create', { number: 'INV-2031-001', party: acmeId, amount: 120_000, issue_date: '2031-05-01' });
    expect(invoice.state).toBe('draft');
    // Posting needs approval: the agent's update that moves state to posted becomes a plan.
    await proposed(invoiceBot, 'invoice.update', { id: invoice.id, state: 'posted', amount: 125_000, due_date: '2031-07-31' });
    const partnerId = (await ok(adminToken, 'lead.create', { title: 'Partner deal', probability: 10 })).id;
    await ok(adminToken, 'lead.update', { id: partnerId, probability: 30, hot: true });
    const [partnerChange] = await historyOf('lead', partnerId);
    const revertPlan = await proposed(leadBot, 'lead.revert', { id: partnerId, change_id: partnerChange!.change_id });
    // A revert whose field changed again since the agent proposed it.
    const staleId = (await ok(adminToken, 'lead.create', { title: 'Stale proposal', probability: 5 })).id;
    await ok(adminToken, 'lead.update', { id: staleId, probability: 15 });
    const [staleChange] = await historyOf('lead', staleId);
    await proposed(leadBot, 'lead.revert', { id: staleId, change_id: staleChange!.change_id });
    await ok(adminToken, 'lead.update', { id: staleId, probability: 25 });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals' }).click();
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();
    const invoiceCard = page.locator('li.plan', { hasText: 'INV-2031-001' });
    await invoiceCard.getByRole('heading', { name: 'Update invoice “INV-2031-001”' }).waitFor();
    await poll(async () => Object.fromEntries(await lines(invoiceCard))).toEqual({ State: 'Draft → Posted', Amount: '€1,200.00 → €1,250.00', 'Due date': '— → Jul 31, 2031' });

    const revertCard = page.locator('li.plan', { hasText: 'Partner deal' });
    await revertCard.getByRole('heading', { name: 'Revert lead “Partner deal”' }).waitFor();
    await revertCard.getByText('Puts back what admin changed').waitFor();
    expect(await revertCard.locator('p.small', { hasText: 'Puts back' }).innerText()).toBe('Puts back what admin changed just now (see the change):');
    expect(await revertCard.getByRole('link', { name: 'see the change' }).getAttribute('href')).toBe(`/records/lead/${partnerId}#change-${partnerChange!.change_id}`);
    expect(await lines(revertCard)).toEqual([
      ['Probability (%)', '30 → 10'],
      ['Hot', 'Yes → —'],
    ]);
    const staleCard = page.locator('li.plan', { hasText: 'Stale proposal' });
    await staleCard.locator('.change-note').waitFor();
    expect(await lines(staleCard)).toEqual([['Probability (%)', '15 → 5']]);
    expect(await staleCard.locator('.change-note').innerText()).toBe('Changed since: now 25. Approving will fail.');
    await expectNoSidewaysScroll(page);
    await shot('h07-approvals-from-to');

    // Approving the stale revert: refused with the server's words; the plan stays pending and the record as it is.
    await staleCard.getByRole('button', { name: 'Approve' }).click();
    await staleCard.getByRole('alert').waitFor();
    expect(await staleCard.getByRole('alert').innerText()).toBe(`lead ${staleId} changed since change ${staleChange!.change_id}`);
    expect((await ok(adminToken, 'lead.get', { id: staleId })).probability).toBe(25);

    // Approving the revert puts the values back; the history names the agent and links to the plan.
    await revertCard.getByRole('button', { name: 'Approve' }).click();
    await notice().getByText('Approved: Revert lead “Partner deal”.').waitFor();
    expect(await ok(adminToken, 'lead.get', { id: partnerId })).toMatchObject({ probability: 10, hot: null });
    await page.goto(`/records/lead/${partnerId}`);
    await poll(() => entries().count()).toBe(3);
    const byPlan = entries().nth(0);
    expect(await summaryOf(byPlan)).toBe(`AGENT Pipeline bot (admin) reverted a change · just now · via plan ${revertPlan}`);
    expect(await lines(byPlan)).toEqual([
      ['Probability (%)', '30 → 10'],
      ['Hot', 'Yes → —'],
    ]);
    const planLink = byPlan.getByRole('link', { name: revertPlan });
    expect(await planLink.getAttribute('href')).toBe(`/approvals#plan-${revertPlan}`);
    await planLink.click();
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();
    const shown = page.locator(`li#plan-${revertPlan}`);
    await poll(() => shown.getAttribute('class')).toBe('plan card highlighted');
    expect(await page.getByRole('button', { name: 'Decided' }).getAttribute('aria-pressed')).toBe('true');
    await shown.getByText('Approved by admin').waitFor();
    expect(await shown.locator('p.small', { hasText: 'earlier change' }).innerText()).toBe('Put back what an earlier change replaced (see the change).');
    expect(await shown.getByRole('link', { name: 'see the change' }).getAttribute('href')).toBe(`/records/lead/${partnerId}#change-${partnerChange!.change_id}`);
    await shot('h08-linked-plan', page, false);
  });

  it('offers no Revert to a person who may not update, says which fields are withheld, and shows no entry of withheld fields alone', async () => {
    const accountant = await newPage();
    const sales = await newPage();
    try {
      await signIn(accountant, 'acc', 'acc-password-1', `/records/lead/${relaunchId}`);
      await poll(() => entries(accountant).count()).toBe(4);
      expect(await historySection(accountant).getByRole('button', { name: 'Revert' }).count()).toBe(0);

      const taxed = (await ok(adminToken, 'party.create', { name: 'Taxed Co', kind: 'company', tax_id: 'T-1' })).id;
      await ok(adminToken, 'party.update', { id: taxed, tax_id: 'T-2' });
      await signIn(sales, 'sam', 'sam-password-1', `/records/party/${taxed}`);
      await poll(() => entries(sales).count()).toBe(1);
      expect(await historySection(sales).locator('.history-withheld').innerText()).toBe('Tax id is withheld from you: changes to it are not shown.');
      expect(await entries(sales).nth(0).getByRole('button', { name: 'Revert' }).count()).toBe(0);
      expect(await lines(entries(sales).nth(0))).toEqual([
        ['Name', 'Taxed Co'],
        ['Kind', 'Company'],
      ]);
      expect(await historySection(sales).innerText()).not.toContain('T-1');
      await expectNoSidewaysScroll(sales);
      await shot('h10-history-withheld', sales);
    } finally {
      await accountant.close();
      await sales.close();
    }
  });

  it('keeps the history of a deleted record on its page', async () => {
    const id = (await ok(adminToken, 'lead.create', { title: 'Closed chapter', probability: 5 })).id;
    await ok(adminToken, 'lead.delete', { id });
    await page.goto(`/records/lead/${id}`);
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await poll(() => entries().count()).toBe(2);
    expect(await summaryOf(entries().nth(0))).toBe('admin deleted this lead · just now');
    expect(await lines(entries().nth(0))).toEqual([
      ['Title', 'Closed chapter → —'],
      ['Stage', 'New → —'],
      ['Probability (%)', '5 → —'],
    ]);
    expect(await historySection().getByRole('button', { name: 'Revert' }).count()).toBe(0);
    await expectNoSidewaysScroll(page);
    await shot('h09-deleted-record-history');
    // An id that never was: no history either, just not found.
    await page.goto('/records/lead/nothing-here');
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(await historySection().count()).toBe(0);
  });

  it('fits the history, the revert confirmation, the inbox and the audit trail in a phone', async () => {
    const phone = await newPage(PHONE);
    try {
      await signIn(phone, 'admin', ADMIN_PASSWORD, `/records/lead/${relaunchId}`);
      await poll(() => entries(phone).count()).toBe(4);
      await expectNoSidewaysScroll(phone);
      await shot('h11-phone-history', phone);
      await entries(phone).nth(0).getByRole('button', { name: 'Revert' }).click();
      const dialog = phone.getByRole('dialog', { name: 'Revert this change?' });
      expect(await lines(dialog)).toEqual([
        ['Expected revenue', '12,000.00 → 15,000.00'],
        ['Close date', 'Jun 30, 2031 → Sep 30, 2031'],
        ['Hot', 'No → Yes'],
      ]);
      await expectNoSidewaysScroll(phone);
      await shot('h12-phone-revert-confirm', phone, false);
      await dialog.getByRole('button', { name: 'Cancel' }).click();

      await phone.goto(`/records/lead/${longId}#change-${(await historyOf('lead', longId))[23]!.change_id}`);
      await poll(() => historySection(phone).locator('li.history-entry.highlighted').count()).toBe(1);
      await expectNoSidewaysScroll(phone);
      await shot('h13-phone-linked-entry', phone, false);

      await phone.goto('/approvals');
      await phone.locator('li.plan', { hasText: 'INV-2031-001' }).locator('dl.changes').waitFor();
      await expectNoSidewaysScroll(phone);
      await shot('h14-phone-approvals', phone);

      await phone.goto('/audit');
      await phone.getByRole('link', { name: 'See the change' }).first().waitFor();
      await expectNoSidewaysScroll(phone);
      await shot('h15-phone-audit', phone, false);
    } finally {
      await phone.close();
    }
  });

  it("shows in the Approvals inbox every record an agent's delete_many would delete; approving deletes them", async () => {
    const ids = (await ok(adminToken, 'lead.create_many', { records: [{ title: 'Old lead one' }, { title: 'Old lead two' }] })).ids as string[];
    await proposed(leadBot, 'lead.delete_many', { ids, max_affected: 2 });
    await page.goto('/approvals');
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();
    const card = page.locator('li.plan', { hasText: 'Deletes 2 records' });
    await card.getByRole('heading', { name: 'Delete lead records' }).waitFor();
    await card.getByRole('link', { name: 'Old lead one' }).waitFor();
    expect(await card.locator('ul.plan-records li').allInnerTexts()).toEqual(['Old lead one', 'Old lead two']);
    expect(await card.getByRole('link', { name: 'Old lead two' }).getAttribute('href')).toBe(`/records/lead/${ids[1]}`);
    await expectNoSidewaysScroll(page);
    await shot('h08-approvals-bulk-delete');
    await card.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('dialog').getByText('Approving lets the agent “Pipeline bot” delete 2 records (lead). This cannot be undone.').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Approve and delete' }).click();
    await notice().getByText(/^Approved: /).waitFor();
    for (const id of ids) expect((await server.command(adminToken, 'lead.get', { id })).status).toBe(400);
  });

  it("shows each record of an agent's qualify_many, update_many and create_many plan with its change; approving makes them", async () => {
    const ids = (await ok(adminToken, 'lead.create_many', { records: [{ title: 'Bulk lead one', probability: 10 }, { title: 'Bulk lead two' }] })).ids as string[];
    await proposed(leadBot, 'lead.qualify_many', { ids, max_affected: 2 });
    await proposed(leadBot, 'lead.update_many', { ids, set: { probability: 55 }, max_affected: 2 });
    await proposed(leadBot, 'lead.create_many', { records: [{ title: 'Proposed lead A', probability: 5 }, { title: 'Proposed lead B' }] });
    await page.goto('/approvals');
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();

    const qualify = page.locator('li.plan', { has: page.getByRole('heading', { name: 'Qualify lead records' }) });
    await qualify.getByText('Qualify 2 records:').waitFor();
    const qualified = qualify.locator('ul.plan-records > li');
    await expect.poll(() => qualified.allInnerTexts()).toEqual([expect.stringMatching(/^Bulk lead one\s+Stage\s+New\s+→\s+Qualified$/), expect.stringMatching(/^Bulk lead two\s+Stage\s+New\s+→\s+Qualified$/)]);

    const update = page.locator('li.plan', { has: page.getByRole('heading', { name: 'Update lead records' }) });
    const updated = update.locator('ul.plan-records > li');
    await expect.poll(() => updated.allInnerTexts()).toEqual([expect.stringMatching(/^Bulk lead one\s+Probability \(%\)\s+10\s+→\s+55$/), expect.stringMatching(/^Bulk lead two\s+Probability \(%\)\s+—\s+→\s+55$/)]);

    const create = page.locator('li.plan', { has: page.getByRole('heading', { name: 'Create lead records' }) });
    await create.getByText('Creates 2 records:').waitFor();
    expect(await create.locator('ol.plan-records > li').allInnerTexts()).toEqual([expect.stringMatching(/^Title\s+Proposed lead A\s+Probability \(%\)\s+5$/), expect.stringMatching(/^Title\s+Proposed lead B$/)]);
    await expectNoSidewaysScroll(page);
    await shot('h09-approvals-bulk-changes');

    await qualify.getByRole('button', { name: 'Approve' }).click();
    await notice().getByText(/^Approved: /).waitFor();
    for (const id of ids) expect((await server.command(adminToken, 'lead.get', { id })).body.value.stage).toBe('qualified');
  });
});
