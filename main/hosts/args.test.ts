import { afterEach, describe, expect, it, vi } from 'vitest';
import { electronUserArgs, initialCwdFromArgs, initialLaneFromArgs, secondLaunchFolder } from './args';

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

describe('electronUserArgs', () => {
  it("drops the binary, and the app's path when not packaged, wherever Chromium's switches are", () => {
    expect(electronUserArgs(['/opt/electron', '.', '/work/app'], false)).toEqual(['/work/app']);
    expect(electronUserArgs(['/opt/electron', '--inspect', '.', 'app', '--x=1'], false)).toEqual(['app']);
    expect(electronUserArgs(['/opt/Byre', '--no-sandbox', '/work/app'], true)).toEqual(['/work/app']);
    expect(electronUserArgs(['/opt/Byre'], true)).toEqual([]);
  });
});

describe('secondLaunchFolder', () => {
  const argv = ['/opt/electron', '--allow-file-access-from-files', 'out/main/index.js', 'app'];

  it('takes the folder the second launch resolved itself, or none when it named none', () => {
    const launch = { argv, workingDirectory: '/home/ada/byre', additionalData: { folder: '/home/ada/app' } };
    expect(secondLaunchFolder(launch, false)).toBe('/home/ada/app');
    expect(secondLaunchFolder({ ...launch, additionalData: { folder: null } }, false)).toBeNull();
  });

  it('without word from the second launch, reads its argv from its working directory', () => {
    vi.stubEnv('INIT_CWD', '/somewhere/else');
    for (const additionalData of [undefined, null, { folder: 3 }, 'app']) {
      expect(secondLaunchFolder({ argv, workingDirectory: '/home/ada', additionalData }, false)).toBe(
        '/home/ada/app',
      );
    }
    expect(
      secondLaunchFolder(
        { argv: ['/opt/electron', 'out/main/index.js'], workingDirectory: '/x', additionalData: 1 },
        false,
      ),
    ).toBeNull();
  });
});

describe('initialLaneFromArgs', () => {
  it('takes --lane=terminal or --lane=stream beside the folder, and nothing else for a lane', () => {
    expect(initialLaneFromArgs(['work', '--lane=terminal'])).toBe('terminal');
    expect(initialLaneFromArgs(['--lane=stream', 'work'])).toBe('stream');
    expect(initialLaneFromArgs(['work'])).toBeNull();
    expect(initialLaneFromArgs(['work', '--lane=plan'])).toBeNull();
    // The spaced form is not taken: its value would be a folder.
    expect(initialLaneFromArgs(['--lane', 'terminal'])).toBeNull();
    expect(initialCwdFromArgs(['work', '--lane=terminal'], '/home/a')).toBe('/home/a/work');
  });
});
