import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findGh } from './pull-request';

describe('the gh a pull request is made with', () => {
  it('is found by its full path on the PATH, never through a relative entry (a folder the repository holds)', () => {
    const root = mkdtempSync(join(tmpdir(), 'byre-gh-'));
    const planted = join(root, 'repo', 'bin');
    const real = join(root, 'tools');
    for (const folder of [planted, real]) {
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'gh'), '#!/bin/sh\n');
      chmodSync(join(folder, 'gh'), 0o755);
    }
    expect(findGh({ PATH: `${relative(process.cwd(), planted)}:${real}` }, 'linux')).toBe(join(real, 'gh'));
    expect(findGh({ PATH: relative(process.cwd(), planted) }, 'linux')).toBeNull();
  });
});
