import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeptTabs } from './kept-tabs';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'byre-tabs-'));
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

const A = '3f9d6c1a-2b4e-4f80-9c7d-1e2f3a4b5c6d';
const B = '8a7b6c5d-4e3f-4a1b-8c9d-0e1f2a3b4c5d';

/** Drafts of live conversations, as main keeps them. */
function liveDrafts(drafts: Record<string, string> = {}) {
  return (conversationId: string) => drafts[conversationId];
}

describe('KeptTabs', () => {
  it('brings back the tabs a window told, in order, the open one open, with their drafts', () => {
    const before = new KeptTabs(dataDir, liveDrafts({ c1: 'half a thought', c2: '' }));
    before.tell(
      [
        { conversationId: 'c1', sessionId: A, cwd: '/work/one' },
        { conversationId: 'c2', sessionId: B, cwd: '/work/two' },
      ],
      1,
    );
    before.flush();
    const after = new KeptTabs(dataDir, liveDrafts());
    expect(after.current()).toEqual({
      tabs: [
        { conversationId: 'c1', sessionId: A, cwd: '/work/one', draft: 'half a thought' },
        { conversationId: 'c2', sessionId: B, cwd: '/work/two', draft: '' },
      ],
      active: 1,
    });
    expect(after.problem).toBeNull();
  });

  it('keeps a tab never sent anything only if it has a draft, and the open one still points at it', () => {
    const tabs = new KeptTabs(dataDir, liveDrafts({ empty: '', typed: 'first words' }));
    tabs.tell(
      [
        { conversationId: 'empty', sessionId: null, cwd: '/work/a' },
        { conversationId: 'typed', sessionId: null, cwd: '/work/b' },
        { conversationId: null, sessionId: A, cwd: '/work/c' },
      ],
      2,
    );
    expect(tabs.current()).toEqual({
      tabs: [
        { conversationId: 'typed', sessionId: null, cwd: '/work/b', draft: 'first words' },
        { conversationId: null, sessionId: A, cwd: '/work/c', draft: '' },
      ],
      active: 1,
    });
  });

  it('keeps the draft a reopened tab came back with until it is resumed', () => {
    const first = new KeptTabs(dataDir, liveDrafts({ c1: 'unsent' }));
    first.tell([{ conversationId: 'c1', sessionId: A, cwd: '/work' }], 0);
    first.flush();
    // Started again: the tab is back as a saved conversation (no process), and Byre quits again.
    const second = new KeptTabs(dataDir, liveDrafts());
    second.tell([{ conversationId: null, sessionId: A, cwd: '/work' }], 0);
    second.flush();
    expect(new KeptTabs(dataDir, liveDrafts()).current().tabs).toEqual([
      { conversationId: null, sessionId: A, cwd: '/work', draft: 'unsent' },
    ]);
  });

  it('gives what was open at startup until a window tells its tabs, so a reload gets the same tabs', () => {
    const first = new KeptTabs(dataDir, liveDrafts());
    first.tell([{ conversationId: null, sessionId: A, cwd: '/work' }], 0);
    first.flush();
    const next = new KeptTabs(dataDir, liveDrafts());
    expect(next.current().tabs).toHaveLength(1);
    // A window that has no tabs yet writes nothing until it says so.
    next.flush();
    expect(new KeptTabs(dataDir, liveDrafts()).current().tabs).toHaveLength(1);
    next.tell([], null);
    expect(next.current()).toEqual({ tabs: [], active: null });
  });

  it('sets a damaged file aside, says so, and starts with no tabs', () => {
    writeFileSync(join(dataDir, 'tabs.json'), '{"tabs": [{"sessionId": 7}]');
    const tabs = new KeptTabs(dataDir, liveDrafts());
    expect(tabs.current()).toEqual({ tabs: [], active: null });
    expect(tabs.problem).toMatch(/could not be reopened/);
    const aside = readdirSync(dataDir).find((name) => name.startsWith('tabs.json.damaged-'));
    expect(aside).toBeDefined();
    expect(readFileSync(join(dataDir, aside ?? ''), 'utf8')).toBe('{"tabs": [{"sessionId": 7}]');
    expect(existsSync(join(dataDir, 'tabs.json'))).toBe(false);
  });
});
