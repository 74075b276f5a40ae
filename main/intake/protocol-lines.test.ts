import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lineType, readProtocolLines } from './protocol-lines';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'byre-lines-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const PROMPT = '11111111-1111-4111-8111-111111111111';
const line = (dir: string, msg: object) => JSON.stringify({ dir, msg });

/** A turn with a Bash call that asked for permission, written as Byre's transcript writes it. */
function transcript(): string {
  const path = join(dir, '2026-12-01T10-00-00-000Z-c1.jsonl');
  writeFileSync(
    path,
    [
      line('recv', { type: 'system', subtype: 'init', session_id: 's', uuid: 'u-init' }),
      line('send', { type: 'user', uuid: PROMPT, message: { role: 'user', content: 'run ls' } }),
      line('recv', { type: 'command_lifecycle', command_uuid: PROMPT, state: 'started' }),
      line('recv', {
        type: 'assistant',
        uuid: 'u-a1',
        message: { id: 'msg_1', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {} }] },
      }),
      line('recv', {
        type: 'control_request',
        request_id: 'req-9',
        request: { subtype: 'can_use_tool', tool_name: 'Bash', tool_use_id: 'toolu_1' },
      }),
      line('send', { type: 'control_response', response: { subtype: 'success', request_id: 'req-9' } }),
      'not json {',
      line('recv', {
        type: 'user',
        uuid: 'u-r1',
        message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt' }] },
      }),
      line('recv', {
        type: 'assistant',
        uuid: 'u-a2',
        message: { id: 'msg_2', content: [{ type: 'text', text: 'Done' }] },
      }),
      line('recv', { type: 'result', subtype: 'success', uuid: 'u-result' }),
      '',
    ].join('\n'),
  );
  return path;
}

describe('readProtocolLines', () => {
  it('finds the lines behind a reply: its own, its tool results, the permission asked and the answer', async () => {
    const found = await readProtocolLines([transcript()], {
      behind: { uuids: ['u-a1'], apiMessageIds: ['msg_1'], toolUseIds: ['toolu_1'] },
      types: null,
      query: '',
      limit: 100,
    });
    expect(found.lines.map((entry) => `${entry.dir} ${entry.type}`)).toEqual([
      'recv assistant',
      'recv control_request/can_use_tool',
      'send control_response/success',
      'recv user',
    ]);
    expect(found.total).toBe(4);
    expect(found.lines[0]?.line).toBe(4);
  });

  it('finds what was sent for a prompt, and reads the whole session by type and search', async () => {
    const path = transcript();
    const prompt = await readProtocolLines([path], {
      behind: { uuids: [PROMPT], apiMessageIds: [], toolUseIds: [] },
      types: null,
      query: '',
      limit: 100,
    });
    expect(prompt.lines.map((entry) => `${entry.dir} ${entry.type}`)).toEqual([
      'send user',
      'recv command_lifecycle',
    ]);

    const whole = await readProtocolLines([path], {
      behind: null,
      types: ['assistant'],
      query: '',
      limit: 1,
    });
    expect(whole.total).toBe(2);
    expect(whole.lines).toHaveLength(1);
    expect(whole.unreadable).toBe(1);
    expect(whole.types.find((entry) => entry.type === 'assistant')?.count).toBe(2);
    const searched = await readProtocolLines([path], { behind: null, types: null, query: 'DONE', limit: 10 });
    expect(searched.lines.map((entry) => entry.type)).toEqual(['assistant']);
    // A transcript that is gone costs only itself.
    const missing = await readProtocolLines([join(dir, 'gone.jsonl'), path], {
      behind: null,
      types: ['result/success'],
      query: '',
      limit: 10,
    });
    expect(missing.lines.map((entry) => entry.file)).toEqual([1]);
  });

  it('names line types with their subtype', () => {
    expect(lineType({ type: 'system', subtype: 'init' })).toBe('system/init');
    expect(lineType({ type: 'control_request', request: { subtype: 'can_use_tool' } })).toBe(
      'control_request/can_use_tool',
    );
    expect(lineType({ type: 'assistant' })).toBe('assistant');
  });
});

it('cuts the long strings of a huge line (an image) and says so', async () => {
  const path = join(dir, 'big.jsonl');
  const image = 'A'.repeat(300_000);
  writeFileSync(
    path,
    `${line('send', { type: 'user', uuid: PROMPT, message: { content: [{ type: 'image', data: image }] } })}\n`,
  );
  const found = await readProtocolLines([path], { behind: null, types: null, query: '', limit: 10 });
  expect(found.lines[0]?.cut).toBe('Long strings shortened.');
  expect(found.lines[0]?.text.length).toBeLessThan(5_000);
  expect(found.lines[0]?.text).toContain('[298000 more characters]');
});

it('shows a line nested too deeply to format as it was written, and reads on', async () => {
  const path = join(dir, 'deep.jsonl');
  const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
  writeFileSync(
    path,
    [
      line('recv', { type: 'system', subtype: 'init' }),
      `{"dir":"recv","msg":{"type":"user","uuid":"u-deep","nested":${deep}}}`,
      line('recv', { type: 'result', subtype: 'success' }),
      '',
    ].join('\n'),
  );
  const found = await readProtocolLines([path], { behind: null, types: null, query: '', limit: 10 });
  expect(found.lines.map((entry) => entry.type)).toEqual(['system/init', 'user', 'result/success']);
  expect(found.lines[1]?.cut).toBe('Nested too deeply to format: the line as the transcript has it.');
  expect(found.lines[1]?.text).toContain('"uuid":"u-deep"');
  expect(found.unreadable).toBe(0);
  // The search still looks into it.
  const searched = await readProtocolLines([path], { behind: null, types: null, query: 'U-DEEP', limit: 10 });
  expect(searched.lines.map((entry) => entry.line)).toEqual([2]);
});

it('caps a line that is long for want of long strings, and says what is left out', async () => {
  const path = join(dir, 'wide.jsonl');
  const many = Array.from({ length: 60_000 }, (_, index) => `s${index}`);
  writeFileSync(path, `${line('recv', { type: 'user', uuid: 'u-wide', many })}\n`);
  const found = await readProtocolLines([path], { behind: null, types: null, query: '', limit: 10 });
  const [wide] = found.lines;
  expect(wide?.text.length).toBe(100_000);
  expect(wide?.cut).toMatch(/^The first 100,000 of [\d,]+ characters\.$/);
});
