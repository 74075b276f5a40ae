import { describe, expect, it } from 'vitest';
import { settingsOf } from './Settings';

/** The settings form as saved: how long the Changes panel's snapshots are kept, a number of days or null. */

const form = {
  cliPath: '',
  defaultModel: '',
  defaultPermissionMode: 'default' as const,
  defaultLane: 'auto' as const,
  imageMaxLongSide: '1568',
  theme: 'system' as const,
  notifications: true,
  promptSuggestions: true,
  snapshotKeep: 'days' as const,
  snapshotDays: '14',
  limitAlertPercent: '90',
  sshConfigFile: '',
};

describe('the limit notification', () => {
  it('saves the percent typed, and refuses one above 100, saying why', () => {
    expect(settingsOf({ ...form, limitAlertPercent: '75' })).toMatchObject({
      values: { limitAlertPercent: 75 },
    });
    expect(settingsOf({ ...form, limitAlertPercent: '120' })).toEqual({
      problem: 'The limit notification is at 100% at most.',
    });
  });
});

describe('the lane new conversations run in', () => {
  it('saves the choice as it is', () => {
    expect(settingsOf({ ...form, defaultLane: 'terminal' })).toMatchObject({
      values: { defaultLane: 'terminal' },
    });
  });
});

describe('keeping snapshots of changes', () => {
  it('saves a number of days', () => {
    expect(settingsOf(form)).toMatchObject({ values: { snapshotRetentionDays: 14 } });
  });

  it('saves null for as long as the conversation is in the library, whatever the days box holds', () => {
    expect(settingsOf({ ...form, snapshotKeep: 'library', snapshotDays: '' })).toMatchObject({
      values: { snapshotRetentionDays: null },
    });
  });

  it('refuses days that are not a whole number from 1, saying why', () => {
    expect(settingsOf({ ...form, snapshotDays: '0' })).toEqual({
      problem: 'Snapshots are kept at least 1 day.',
    });
    expect(settingsOf({ ...form, snapshotDays: '' })).toEqual({
      problem: 'The days to keep snapshots are a number.',
    });
    expect(settingsOf({ ...form, snapshotDays: '2.5' })).toEqual({
      problem: 'The days to keep snapshots are a whole number.',
    });
  });
});

describe('the ssh config file', () => {
  it('saves a path as typed, and an empty field as none (the home folder’s)', () => {
    expect(settingsOf({ ...form, sshConfigFile: ' /home/ada/work.ssh ' })).toMatchObject({
      values: { sshConfigFile: '/home/ada/work.ssh' },
    });
    expect(settingsOf({ ...form, sshConfigFile: '  ' })).toMatchObject({ values: { sshConfigFile: null } });
  });
});
