import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IMAGE_LIMITS } from '../../shared/images';
import { SettingsStore } from './settings';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'byre-settings-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const file = () => join(dir, 'settings.json');
const written = () => JSON.parse(readFileSync(file(), 'utf8')) as Record<string, unknown>;

describe('SettingsStore', () => {
  it('keeps the valid fields when one is bad, reports the bad one, and keeps fields it does not know', () => {
    writeFileSync(
      file(),
      JSON.stringify({
        defaultPermissionMode: 'plan',
        recentFolders: ['/work/a'],
        imageMaxLongSide: 'huge',
        fromALaterVersion: { keep: true },
      }),
    );
    const settings = new SettingsStore(dir);
    expect(settings.defaultPermissionMode).toBe('plan');
    expect(settings.recentFolders).toEqual(['/work/a']);
    expect(settings.imageMaxLongSide).toBe(IMAGE_LIMITS.defaultMaxLongSide);
    expect(settings.problems).toHaveLength(1);
    expect(settings.problems[0]).toContain('"imageMaxLongSide" is not valid');
    expect(settings.problems[0]).toContain(String(IMAGE_LIMITS.defaultMaxLongSide));

    // The next save keeps what was good and what it does not know.
    settings.addRecentFolder('/work/b');
    expect(written()).toEqual({
      defaultPermissionMode: 'plan',
      defaultLane: 'auto',
      recentFolders: ['/work/b', '/work/a'],
      recentFoldersByHost: {},
      imageMaxLongSide: IMAGE_LIMITS.defaultMaxLongSide,
      cliPath: null,
      defaultModel: null,
      theme: 'system',
      notifications: true,
      promptSuggestions: true,
      snapshotRetentionDays: 30,
      limitAlertPercent: 90,
      sshConfigFile: null,
      commitAs: null,
      commitAsByFolder: {},
      doneWhenByFolder: {},
      worktreeSetupByRepository: {},
      checkMaxRounds: 5,
      checkTimeoutSeconds: 600,
      planApprovalMode: 'default',
      fromALaterVersion: { keep: true },
    });
  });

  it("reads the settings screen's values, each on its own, and saves a change in one write", () => {
    writeFileSync(file(), JSON.stringify({ theme: 'sepia', notifications: false, cliPath: '/opt/claude' }));
    const settings = new SettingsStore(dir);
    expect(settings.values).toEqual({
      cliPath: '/opt/claude',
      defaultModel: null,
      defaultPermissionMode: 'default',
      defaultLane: 'auto',
      imageMaxLongSide: IMAGE_LIMITS.defaultMaxLongSide,
      theme: 'system',
      notifications: false,
      promptSuggestions: true,
      snapshotRetentionDays: 30,
      limitAlertPercent: 90,
      sshConfigFile: null,
    });
    expect(settings.problems).toEqual([expect.stringContaining('"theme" is not valid')]);
    settings.update({
      theme: 'dark',
      defaultModel: 'sonnet',
      cliPath: null,
      promptSuggestions: false,
      snapshotRetentionDays: null,
    });
    expect(new SettingsStore(dir).values).toMatchObject({
      theme: 'dark',
      defaultModel: 'sonnet',
      cliPath: null,
      promptSuggestions: false,
      snapshotRetentionDays: null,
    });
  });

  it('keeps a "Done when" default per folder, and the check limits, refusing ones out of range', () => {
    writeFileSync(file(), JSON.stringify({ checkMaxRounds: 0, checkTimeoutSeconds: 30 }));
    const settings = new SettingsStore(dir);
    expect(settings.checkLimits).toEqual({ maxRounds: 5, timeoutMs: 30_000 });
    expect(settings.problems[0]).toContain('"checkMaxRounds" is not valid');
    expect(settings.doneWhenFor('/work/a')).toBe('');
    settings.setDoneWhenFor('/work/a', '  npm test  ');
    settings.setDoneWhenFor('/work/b', 'cargo test');
    expect(settings.doneWhenFor('/work/a')).toBe('npm test');
    // Empty: the folder has no default any more.
    settings.setDoneWhenFor('/work/b', ' ');
    expect(settings.doneWhenFor('/work/b')).toBe('');
    expect(new SettingsStore(dir).doneWhenFor('/work/a')).toBe('npm test');
    expect(written()).toMatchObject({ doneWhenByFolder: { '/work/a': 'npm test' } });
    // A folder named like an object's own property is only a folder.
    expect(settings.doneWhenFor('constructor')).toBe('');
  });

  it('keeps a setup command per repository for its new worktrees, empty removing it', () => {
    const settings = new SettingsStore(dir);
    settings.setWorktreeSetupFor('/work/repo', '  npm ci  ');
    settings.setWorktreeSetupFor('/work/other', 'make');
    settings.setWorktreeSetupFor('/work/other', '');
    expect(new SettingsStore(dir).worktreeSetupFor('/work/repo')).toBe('npm ci');
    expect(new SettingsStore(dir).worktreeSetups).toEqual([{ repository: '/work/repo', command: 'npm ci' }]);
    expect(settings.worktreeSetupFor('/work/other')).toBe('');
  });

  it("keeps the other folders' settings when one folder's entry is bad", () => {
    writeFileSync(
      file(),
      JSON.stringify({
        commitAsByFolder: {
          '/work/a': { name: 'Ada', email: 'ada@example.com' },
          '/work/b': { name: 'Bad', email: 'not an email' },
        },
      }),
    );
    const settings = new SettingsStore(dir);
    expect(settings.commitIdentityFor('/work/a')).toEqual({ name: 'Ada', email: 'ada@example.com' });
    expect(settings.commitIdentityFor('/work/b')).toBeNull();
    expect(settings.problems).toHaveLength(1);
    expect(settings.problems[0]).toContain('"commitAsByFolder" for /work/b is not valid');
  });

  it('remembers the mode the last approved plan went on in, and reads a bad one as the default', () => {
    const settings = new SettingsStore(dir);
    expect(settings.planApprovalMode).toBe('default');
    settings.setPlanApprovalMode('acceptEdits');
    expect(new SettingsStore(dir).planApprovalMode).toBe('acceptEdits');
    writeFileSync(file(), JSON.stringify({ planApprovalMode: 'bypassPermissions' }));
    const bad = new SettingsStore(dir);
    expect(bad.planApprovalMode).toBe('default');
    expect(bad.problems).toHaveLength(1);
  });

  it('sets aside a file that is not JSON, never overwriting it, and says where it is', () => {
    writeFileSync(file(), '{"defaultPermissionMode": "plan",');
    const settings = new SettingsStore(dir);
    expect(settings.defaultPermissionMode).toBe('default');
    const aside = readdirSync(dir).find((name) => name.startsWith('settings.json.damaged-'));
    expect(aside).toBeDefined();
    expect(readFileSync(join(dir, aside!), 'utf8')).toBe('{"defaultPermissionMode": "plan",');
    expect(settings.problems).toEqual([expect.stringContaining(aside!)]);
    settings.setDefaultPermissionMode('acceptEdits');
    expect(written()).toMatchObject({ defaultPermissionMode: 'acceptEdits' });
  });

  it('takes keys that name built-in properties for unknown fields, not for settings', () => {
    writeFileSync(
      file(),
      '{"constructor": 1, "__proto__": {"x": 1}, "toString": "no", "defaultPermissionMode": "plan"}',
    );
    const settings = new SettingsStore(dir);
    expect(settings.defaultPermissionMode).toBe('plan');
    expect(settings.problems).toEqual([]);
    settings.addRecentFolder('/work/c');
    expect(readFileSync(file(), 'utf8')).toContain('"__proto__"');
    expect(written()).toMatchObject({ constructor: 1, toString: 'no', recentFolders: ['/work/c'] });
  });

  it('keeps both changes when two instances on one data folder each make one', () => {
    writeFileSync(file(), JSON.stringify({ recentFolders: ['/work/a'], fromALaterVersion: 1 }));
    const one = new SettingsStore(dir);
    const other = new SettingsStore(dir);
    one.addRecentFolder('/work/b');
    other.setDoneWhenFor('/work/b', 'npm test');
    other.addRecentFolder('/work/c');
    one.update({ theme: 'dark' });
    one.setCommitIdentity('global', { name: 'Ada', email: 'ada@example.com' });
    const after = new SettingsStore(dir);
    expect(after.recentFolders).toEqual(['/work/c', '/work/b', '/work/a']);
    expect(after.doneWhenFor('/work/b')).toBe('npm test');
    expect(after.values.theme).toBe('dark');
    expect(after.globalCommitIdentity).toEqual({ name: 'Ada', email: 'ada@example.com' });
    expect(written()).toMatchObject({ fromALaterVersion: 1 });
    // Each instance sees the file as its own last change left it.
    expect(one.recentFolders).toEqual(['/work/c', '/work/b', '/work/a']);
  });

  it('has nothing to report for a missing or valid file', () => {
    expect(new SettingsStore(dir).problems).toEqual([]);
    writeFileSync(file(), JSON.stringify({ defaultPermissionMode: 'plan' }));
    expect(new SettingsStore(dir).problems).toEqual([]);
  });
});
