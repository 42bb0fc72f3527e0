/**
 * The cutoffs of a retention policy at an instant: each window gives the instant before which its
 * rows go, 0 keeps them for ever, and a reads' window as long as the trail's or longer is the
 * trail's (reads then go with the rest).
 */
import { describe, expect, it } from 'vitest';
import { cutoffsAt, DAY_MS, DEFAULT_RETENTION, type RetentionPolicy } from '../../../runtime/retention/policy.ts';

const NOW = Date.parse('2026-11-26T12:00:00.000Z');
const days = (n: number) => new Date(NOW - n * DAY_MS).toISOString();
const policy = (audit: number, reads: number, history: number, agent: number, events = 0, deadEvents = 0): RetentionPolicy => ({
  auditMs: audit * DAY_MS,
  auditReadsMs: reads * DAY_MS,
  historyMs: history * DAY_MS,
  agentMs: agent * DAY_MS,
  eventsMs: events * DAY_MS,
  deadEventsMs: deadEvents * DAY_MS,
  everyMs: 60_000,
});

describe('cutoffsAt', () => {
  it('gives the defaults: a 400-day trail, 30 days of reads, history for ever, 30 days of a gone agent, 7 days of delivered events and 30 of dead ones', () => {
    expect(cutoffsAt(DEFAULT_RETENTION, NOW)).toEqual({
      sessionsGoneBefore: days(0),
      auditReadsBefore: days(30),
      auditBefore: days(400),
      agentsGoneBefore: days(30),
      deliveredEventsBefore: days(7),
      deadEventsBefore: days(30),
    });
  });

  it.each([
    ['every window set', policy(10, 2, 5, 3), { auditReadsBefore: days(2), auditBefore: days(10), historyBefore: days(5), agentsGoneBefore: days(3) }],
    ['everything kept for ever', policy(0, 0, 0, 0), {}],
    ['reads only', policy(0, 7, 0, 0), { auditReadsBefore: days(7) }],
    ['reads as long as the trail: the trail cutoff only', policy(30, 30, 0, 0), { auditBefore: days(30) }],
    ['reads longer than the trail: the trail cutoff only', policy(30, 60, 0, 0), { auditBefore: days(30) }],
    ['reads 0 with a trail: reads go with the trail', policy(30, 0, 0, 0), { auditBefore: days(30) }],
    ['history and agents only', policy(0, 0, 1, 1), { historyBefore: days(1), agentsGoneBefore: days(1) }],
    ['delivered events only', policy(0, 0, 0, 0, 7, 0), { deliveredEventsBefore: days(7) }],
    ['dead events only', policy(0, 0, 0, 0, 0, 30), { deadEventsBefore: days(30) }],
  ])('%s', (_name, given, expected) => {
    // Ended sessions go at every pass, whatever the policy.
    expect(cutoffsAt(given, NOW)).toEqual({ sessionsGoneBefore: days(0), ...expected });
  });
});
