import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LibraryChoices } from './library-choices';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'byre-choices-'));
});
afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

const A = '3f9d6c1a-2b4e-4f80-9c7d-1e2f3a4b5c6d';
const B = '8a7b6c5d-4e3f-4a1b-8c9d-0e1f2a3b4c5d';

describe('LibraryChoices', () => {
  it('keeps both choices when two instances on one data folder each make one', () => {
    const one = new LibraryChoices(dataDir);
    const other = new LibraryChoices(dataDir);
    one.setRename(A, 'The parser');
    other.hide(B);
    other.setRename(B, 'Old attempt');
    one.hide(A);
    const after = new LibraryChoices(dataDir);
    expect(after.rename(A)).toBe('The parser');
    expect(after.rename(B)).toBe('Old attempt');
    expect(after.isHidden(A)).toBe(true);
    expect(after.isHidden(B)).toBe(true);
    // What an instance shows is the file as its own last change left it.
    expect(one.isHidden(B)).toBe(true);
    expect(one.rename(B)).toBe('Old attempt');
  });
});
