import { describe, expect, it } from 'vitest';
import { findProgram, skipWorkingFolderLookups } from './programs';

describe('a program Byre runs', () => {
  it('is found by its full path on the PATH, skipping empty and relative entries', () => {
    const there =
      (...paths: string[]) =>
      (path: string) =>
        paths.includes(path);
    expect(
      findProgram('git', { PATH: '.::bin:/usr/bin' }, 'linux', there('git', 'bin/git', '/usr/bin/git')),
    ).toBe('/usr/bin/git');
    expect(findProgram('git', { PATH: '.:bin' }, 'linux', there('git', 'bin/git'))).toBeNull();
  });

  it('on Windows, by the PATH (or Path) and PATHEXT, never the working folder', () => {
    const there = (path: string) => path === 'C:\\Program Files\\Git\\cmd\\git.exe';
    expect(findProgram('git', { Path: '.;C:\\Program Files\\Git\\cmd' }, 'win32', there)).toBe(
      'C:\\Program Files\\Git\\cmd\\git.exe',
    );
    expect(findProgram('git.exe', { PATH: ';.\\tools' }, 'win32', () => true)).toBeNull();
  });

  it('on Windows, has every program it starts skip the working folder in its own lookups too', () => {
    const windows: NodeJS.ProcessEnv = { Path: 'C:\\Windows' };
    skipWorkingFolderLookups(windows, 'win32');
    expect(windows.NoDefaultCurrentDirectoryInExePath).toBe('1');
    const chosen: NodeJS.ProcessEnv = { NoDefaultCurrentDirectoryInExePath: '' };
    skipWorkingFolderLookups(chosen, 'win32');
    expect(chosen.NoDefaultCurrentDirectoryInExePath).toBe('');
    const linux: NodeJS.ProcessEnv = {};
    skipWorkingFolderLookups(linux, 'linux');
    expect(linux).toEqual({});
  });
});
