import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holdDataFolder } from './host-lock';

let dataDir: string;
beforeEach(() => {
  dataDir = join(mkdtempSync(join(tmpdir(), 'byre-host-lock-')), 'data');
});
afterEach(() => {
  rmSync(join(dataDir, '..'), { recursive: true, force: true });
});

describe('holdDataFolder', () => {
  it('refuses a second host with one line saying where the first is, and lets it in once the first goes', () => {
    const first = holdDataFolder(dataDir);
    expect(() => holdDataFolder(dataDir)).toThrow(`already starting on ${dataDir} (process ${process.pid})`);
    first.announce('http://127.0.0.1:4000/#token=abc');
    expect(() => holdDataFolder(dataDir)).toThrow(
      `already running on ${dataDir} at http://127.0.0.1:4000/#token=abc (process ${process.pid}); `,
    );
    first.release();
    holdDataFolder(dataDir).release();
  });
});
