import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ElicitationRequest } from '../../../shared/conversation';
import type { ElicitationField } from '../../../shared/ipc';
import { contentOf, ElicitationCard } from './ElicitationCard';

/** The MCP elicitation card as it renders, and what its form sends. */

const field = (name: string, type: ElicitationField['type'], extra: Partial<ElicitationField> = {}) => ({
  name,
  type,
  label: name,
  description: null,
  required: false,
  options: [],
  minimum: null,
  maximum: null,
  default: null,
  ...extra,
});

const request = (fields: ElicitationField[]): ElicitationRequest => ({
  requestId: 'e1',
  serverName: 'people',
  message: 'Who is asking?',
  mode: 'form',
  url: null,
  fields,
});

const render = (fields: ElicitationField[]) =>
  renderToStaticMarkup(<ElicitationCard tabId="c1" request={request(fields)} />);

describe('the elicitation card', () => {
  it('is a group named after the server’s message, with a field per property and Submit, Decline, Cancel', () => {
    const html = render([
      field('name', 'text', { label: 'Your name', required: true }),
      field('age', 'integer', { minimum: 0 }),
      field('subscribe', 'boolean', { label: 'Subscribe', default: true }),
      field('colour', 'choice', { options: [{ value: 'red', label: 'Red' }] }),
    ]);
    expect(html).toContain('role="group" aria-label="Who is asking?"');
    expect(html).toMatch(
      /<label for="[^"]+">Your name \(required\)<\/label><input[^>]*type="text"[^>]*required/,
    );
    expect(html).toMatch(/<input[^>]*type="number"[^>]*step="1"[^>]*min="0"/);
    expect(html).toMatch(/<input type="checkbox" checked=""/);
    expect(html).toContain('<option value="red">Red</option>');
    expect([...html.matchAll(/<button[^>]*>([^<]*)<\/button>/g)].map((match) => match[1])).toEqual([
      'Submit',
      'Decline',
      'Cancel',
    ]);
  });

  it('offers no Submit for a form with a kind of field it cannot show, and says which', () => {
    const html = render([field('address', 'unsupported', { label: 'Address' })]);
    expect(html).toMatch(/<button type="submit"[^>]*disabled=""[^>]*>Submit/);
    expect(html).toContain('Byre cannot show Address');
  });

  it('sends numbers as numbers and a box as true or false, leaving out empty optional fields', () => {
    const fields = [
      field('name', 'text'),
      field('age', 'integer'),
      field('note', 'text'),
      field('ok', 'boolean'),
    ];
    expect(contentOf(fields, { name: 'Ada', age: '36', note: '', ok: false })).toEqual({
      name: 'Ada',
      age: 36,
      ok: false,
    });
  });
});
