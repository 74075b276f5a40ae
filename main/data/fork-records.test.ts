import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ForkRecord } from '../../shared/branches';
import { FORK_RECORDS_FILE, ForkRecords } from './fork-records';

let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'byre-branches-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

const PARENT = '3f9d6c1a-2b4e-4f80-9c7d-1e2f3a4b5c6d';
const FORK = '8a7b6c5d-4e3f-4a1b-8c9d-0e1f2a3b4c5d';
const FORK_OF_FORK = '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f';

const first: ForkRecord = {
  sessionId: FORK,
  parentSessionId: PARENT,
  forkPointUuid: 'adcef15c-5550-4d48-9ac5-017e0d4f9692',
  createdAt: 1_767_000_000_000,
};
const second: ForkRecord = {
  sessionId: FORK_OF_FORK,
  parentSessionId: FORK,
  forkPointUuid: null,
  createdAt: 1_767_000_001_000,
};

const file = () => join(dataDir, FORK_RECORDS_FILE);

describe('ForkRecords', () => {
  it('has no forks before the first is recorded, and writes no file to say so', () => {
    expect(new ForkRecords(dataDir).list()).toEqual([]);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('appends each fork, oldest first, in the ForkRecordsFile format', () => {
    const records = new ForkRecords(dataDir);
    records.add(first);
    records.add(second);
    expect(records.list()).toEqual([first, second]);
    expect(JSON.parse(readFileSync(file(), 'utf8'))).toEqual({ version: 1, forks: [first, second] });
    // Another instance (the app after a restart) reads the same.
    expect(new ForkRecords(dataDir).list()).toEqual([first, second]);
  });

  it('keeps every fork when two instances on one data folder each record one', () => {
    const one = new ForkRecords(dataDir);
    const other = new ForkRecords(dataDir);
    expect(one.list()).toEqual([]);
    expect(other.list()).toEqual([]);
    one.add(first);
    other.add(second);
    expect(new ForkRecords(dataDir).list()).toEqual([first, second]);
  });

  it('replaces the file by rename, leaving no temp file behind', () => {
    const records = new ForkRecords(dataDir);
    records.add(first);
    records.add(second);
    expect(readdirSync(dataDir)).toEqual([FORK_RECORDS_FILE]);
  });

  it('creates the data folder when it is not there yet', () => {
    const nested = join(dataDir, 'not', 'yet');
    new ForkRecords(nested).add(first);
    expect(new ForkRecords(nested).list()).toEqual([first]);
  });

  it('sets a damaged file aside before writing, and never overwrites it', () => {
    for (const damaged of ['{"version":1,"forks":[{"sessionId":', '{"version":2,"forks":[]}', '[]']) {
      rmSync(dataDir, { recursive: true, force: true });
      const records = new ForkRecords(dataDir);
      new ForkRecords(dataDir).add(first);
      writeFileSync(file(), damaged);
      // Reading alone moves nothing.
      expect(records.list()).toEqual([]);
      expect(readFileSync(file(), 'utf8')).toBe(damaged);

      records.add(second);
      expect(records.list()).toEqual([second]);
      const aside = readdirSync(dataDir).filter((name) => name.startsWith(`${FORK_RECORDS_FILE}.damaged-`));
      expect(aside).toHaveLength(1);
      expect(readFileSync(join(dataDir, aside[0]!), 'utf8')).toBe(damaged);
    }
  });

  it('refuses a record that does not match the schema, and leaves the file as it was', () => {
    const records = new ForkRecords(dataDir);
    records.add(first);
    const before = readFileSync(file(), 'utf8');
    expect(() => records.add({ ...second, sessionId: '' })).toThrow();
    expect(readFileSync(file(), 'utf8')).toBe(before);
  });
});
