import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostOfCopyFolder, hostProjectsCopy, remoteCopiesDir } from './remote-copies';

/** Where a host's sessions are copied to: a folder of its own under <data>/remote, whatever its name. */

describe('the folder of a host’s copies', () => {
  it('is under <data>/remote for any name, and says which host it is', () => {
    for (const host of ['devbox', 'ada@gpu-1:2222', '.', '..', '.hidden', 'a/b', '%2E']) {
      const copy = hostProjectsCopy('/data', host);
      const folder = relative(remoteCopiesDir('/data'), copy).split('/');
      expect(folder, host).toHaveLength(2);
      expect(folder[1]).toBe('projects');
      expect(folder[0]).not.toMatch(/^\.|\//);
      expect(hostOfCopyFolder(folder[0] ?? '')).toBe(host);
    }
    expect(hostProjectsCopy('/data', '..')).toBe(join('/data', 'remote', '%2E.', 'projects'));
  });

  it('is no host’s when its name is not one Byre makes', () => {
    for (const name of ['..', '.', '%zz', '', 'a%2Fb%']) expect(hostOfCopyFolder(name), name).toBeNull();
  });
});
