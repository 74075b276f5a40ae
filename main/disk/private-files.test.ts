import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SettingsStore } from '../data/settings';
import { TranscriptWriter } from '../claude/transcript';
import { openDatabase } from '../library/worker/text-store';
import { makeDataPrivate } from './private-files';

const modeOf = (path: string) => statSync(path).mode & 0o777;

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'byre-private-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe.runIf(process.platform !== 'win32')('private data', () => {
  it('makes what an earlier version left readable private, and leaves what is not Byre’s alone', async () => {
    const data = join(root, 'data');
    mkdirSync(join(data, 'transcripts', 'deep'), { recursive: true, mode: 0o755 });
    chmodSync(data, 0o755);
    chmodSync(join(data, 'transcripts'), 0o755);
    chmodSync(join(data, 'transcripts', 'deep'), 0o755);
    const own = [
      'settings.json',
      'library.json',
      'branches.json',
      'library.sqlite',
      'library-text-3.sqlite-wal',
    ];
    for (const name of own) writeFileSync(join(data, name), '{}', { mode: 0o644 });
    writeFileSync(join(data, 'transcripts', 'deep', 'run.jsonl'), 'x', { mode: 0o644 });
    // Not Byre's: a file of the user's in the same folder, and a link out of it.
    writeFileSync(join(data, 'notes.txt'), 'mine', { mode: 0o644 });
    const outside = join(root, 'outside.txt');
    writeFileSync(outside, 'elsewhere', { mode: 0o644 });
    symlinkSync(outside, join(data, 'transcripts', 'link.jsonl'));
    // Already stricter than private: never widened.
    writeFileSync(join(data, 'transcripts', 'read-only.jsonl'), 'x', { mode: 0o400 });

    expect(await makeDataPrivate(data)).toBe(own.length + 4);
    expect(modeOf(data)).toBe(0o700);
    expect(modeOf(join(data, 'transcripts'))).toBe(0o700);
    expect(modeOf(join(data, 'transcripts', 'deep'))).toBe(0o700);
    for (const name of own) expect(modeOf(join(data, name)), name).toBe(0o600);
    expect(modeOf(join(data, 'transcripts', 'deep', 'run.jsonl'))).toBe(0o600);
    expect(modeOf(join(data, 'notes.txt'))).toBe(0o644);
    expect(modeOf(outside)).toBe(0o644);
    expect(modeOf(join(data, 'transcripts', 'read-only.jsonl'))).toBe(0o400);
    // Done once, there is nothing left to change.
    expect(await makeDataPrivate(data)).toBe(0);
  });

  it('creates settings, transcripts and databases private, whatever the umask', () => {
    const data = join(root, 'fresh', 'data');
    const settings = new SettingsStore(data);
    settings.setDefaultPermissionMode('plan');
    expect(modeOf(data)).toBe(0o700);
    expect(modeOf(join(data, 'settings.json'))).toBe(0o600);

    const transcript = new TranscriptWriter(join(data, 'transcripts', 'run.jsonl'));
    transcript.record('recv', { type: 'system' });
    transcript.close();
    expect(modeOf(join(data, 'transcripts'))).toBe(0o700);
    expect(modeOf(join(data, 'transcripts', 'run.jsonl'))).toBe(0o600);

    const db = openDatabase(join(data, 'library.sqlite'), 'CREATE TABLE t (x);', 1);
    db.prepare('INSERT INTO t VALUES (1)').run();
    expect(modeOf(join(data, 'library.sqlite'))).toBe(0o600);
    expect(modeOf(join(data, 'library.sqlite-wal'))).toBe(0o600);
    db.close();
  });
});
