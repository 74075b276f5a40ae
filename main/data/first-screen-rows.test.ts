import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LibraryRow } from '../../shared/library';
import { FIRST_SCREEN_FILE, KeptFirstScreen } from './first-screen-rows';

/**
 * The rows a host draws into the app's page at once: kept from the last run, current as the library
 * changes, written privately and only when they changed, written on quitting, and never a problem when the
 * file is missing or damaged.
 */

const row = (sessionId: string, title: string): LibraryRow => ({
  sessionId,
  title,
  cwd: '/work/app',
  gitBranch: null,
  lastActive: 1_700_000_000_000,
  messageCount: 2,
  sizeBytes: 10,
  resumable: true,
  hasTranscript: true,
  branchCount: 1,
  familyKey: sessionId,
  cost: { usd: null, estimated: false },
});

describe('the first screen’s rows kept for the next start', () => {
  let dataDir: string;
  let library: LibraryRow[];
  let asked: number;
  const list = async () => {
    asked += 1;
    return library;
  };
  const file = () => join(dataDir, FIRST_SCREEN_FILE);

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'byre-first-screen-'));
    library = [row('s1', 'Parser rewrite'), row('s2', 'Docs')];
    asked = 0;
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('has none on a first start, keeps what the library says, and gives it to the next start', async () => {
    const first = new KeptFirstScreen(dataDir, list);
    expect(first.current()).toEqual([]);
    await first.refresh();
    expect(first.current()).toEqual(library);
    expect(statSync(file()).mode & 0o777).toBe(0o600);

    // The next start draws them before its library has said anything.
    const next = new KeptFirstScreen(dataDir, list);
    asked = 0;
    expect(next.current()).toEqual(library);
    expect(asked).toBe(0);
  });

  it('writes the file only when the rows changed', async () => {
    const kept = new KeptFirstScreen(dataDir, list);
    await kept.refresh();
    writeFileSync(file(), JSON.stringify([row('s9', 'Marker: not rewritten')]));
    await kept.refresh();
    expect(readFileSync(file(), 'utf8')).toContain('Marker: not rewritten');
    library = [row('s3', 'New one'), ...library];
    await kept.refresh();
    expect(JSON.parse(readFileSync(file(), 'utf8'))).toEqual(library);
    expect(kept.current()[0]?.title).toBe('New one');
  });

  it('writes a change still waiting when Byre quits, and asks nothing after', async () => {
    const kept = new KeptFirstScreen(dataDir, list);
    await kept.refresh();
    library = [row('s1', 'Renamed just before quitting')];
    kept.changed();
    await kept.flush();
    expect(JSON.parse(readFileSync(file(), 'utf8'))).toEqual(library);
    const before = asked;
    kept.changed();
    await kept.flush();
    expect(asked).toBe(before);
  });

  it('takes a damaged file, or one of another shape, for none, and replaces it', async () => {
    for (const damaged of ['{"rows": [', JSON.stringify([{ title: 'no id' }])]) {
      writeFileSync(file(), damaged);
      const kept = new KeptFirstScreen(dataDir, list);
      expect(kept.current()).toEqual([]);
      await kept.refresh();
      expect(JSON.parse(readFileSync(file(), 'utf8'))).toEqual(library);
    }
  });

  it('keeps what it had when the library cannot answer', async () => {
    const kept = new KeptFirstScreen(dataDir, list);
    await kept.refresh();
    const failing = new KeptFirstScreen(dataDir, () =>
      Promise.reject(new Error('The library is not running.')),
    );
    await failing.refresh();
    expect(failing.current()).toEqual(library);
    expect(JSON.parse(readFileSync(file(), 'utf8'))).toEqual(library);
  });
});
