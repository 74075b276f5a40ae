import { afterEach, describe, expect, it, vi } from 'vitest';
import { initialCwdFromArgs } from './args';

afterEach(() => vi.unstubAllEnvs());

describe('initialCwdFromArgs', () => {
  it('takes a relative folder from where npm was started, not from Byre’s own folder', () => {
    vi.stubEnv('INIT_CWD', '/home/ada/projects');
    expect(initialCwdFromArgs(['--port', 'app'])).toBe('/home/ada/projects/app');
    expect(initialCwdFromArgs(['.'])).toBe('/home/ada/projects');
    expect(initialCwdFromArgs(['/srv/other'])).toBe('/srv/other');
  });

  it('without npm, from the current folder; no folder named: none', () => {
    vi.stubEnv('INIT_CWD', '');
    expect(initialCwdFromArgs(['sub'])).toBe(`${process.cwd()}/sub`);
    expect(initialCwdFromArgs(['--inspect'])).toBeNull();
  });
});
