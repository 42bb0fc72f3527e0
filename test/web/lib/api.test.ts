/** Table tests of web/src/lib/api.ts: server errors by field. */
import { describe, expect, it } from 'vitest';
import { errorField, fieldMessage, isMissingRecord, ApiError } from '../../../web/src/lib/api.ts';

describe('server errors by field', () => {
  const names = ['title', 'close_date', 'party'];
  it.each([
    ['lead.title is required', 'title'],
    ['lead.close_date must be a real calendar date YYYY-MM-DD', 'close_date'],
    ['lead.party: no party with id 7', 'party'],
    ['unknown field lead.nope', undefined],
    ['party.name is required', undefined],
    ['lead 7 is referred to by invoice 9', undefined],
  ])('%j → %s', (message, name) => expect(errorField(message, 'lead', names)).toBe(name));

  it('names the field by its label', () => {
    expect(fieldMessage('lead.close_date must be a real calendar date YYYY-MM-DD', 'lead', { name: 'close_date', label: 'Close date' })).toBe('Close date must be a real calendar date YYYY-MM-DD');
  });

  it('knows a missing record when it sees one', () => {
    expect(isMissingRecord(new ApiError(404, 'not found'))).toBe(true);
    expect(isMissingRecord(new ApiError(400, 'lead 01ABC not found'))).toBe(true);
    expect(isMissingRecord(new ApiError(400, 'lead.title is required'))).toBe(false);
  });
});
