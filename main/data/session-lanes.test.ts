import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionLanes } from './session-lanes';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'byre-lanes-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('SessionLanes', () => {
  it('keeps the lane a session last ran in, for the next start of Byre', () => {
    new SessionLanes(dir).note('s1', 'terminal');
    const again = new SessionLanes(dir);
    expect(again.of('s1')).toBe('terminal');
    expect(again.of('s2')).toBeUndefined();
    again.note('s1', 'stream');
    expect(new SessionLanes(dir).of('s1')).toBe('stream');
  });

  it('takes a damaged file for none kept, and writes a good one over it', () => {
    writeFileSync(join(dir, 'lanes.json'), '{"version":1,"sessions":{"s1":"elsewhere"}}');
    const lanes = new SessionLanes(dir);
    expect(lanes.of('s1')).toBeUndefined();
    lanes.note('s2', 'terminal');
    expect(new SessionLanes(dir).of('s2')).toBe('terminal');
    expect(JSON.parse(readFileSync(join(dir, 'lanes.json'), 'utf8'))).toMatchObject({ version: 1 });
  });
});
