import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ExportFile } from '../../shared/library';
import { saveDialogOptions, writeExport } from './export-save';

const markdown: ExportFile = {
  name: 'Parser bug.md',
  mediaType: 'text/markdown',
  encoding: 'utf8',
  data: '# Parser bug\n',
};
const image: ExportFile = {
  name: 'Parser bug-1.png',
  mediaType: 'image/png',
  encoding: 'base64',
  data: 'iVBORw==',
};

describe('an export saved under Electron', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'byre-export-save-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('offers the export under its own name and kind', () => {
    expect(saveDialogOptions([markdown, image], '/home/ada/Downloads')).toEqual({
      defaultPath: '/home/ada/Downloads/Parser bug.md',
      filters: [{ name: 'Markdown', extensions: ['md'] }],
    });
  });

  it('writes the first file where the user chose and the images beside it, under their names', async () => {
    const chosen = join(folder, 'notes.md');
    const saved = await writeExport([markdown, image], chosen);
    expect(saved).toEqual({ way: 'saved', paths: [chosen, join(folder, 'Parser bug-1.png')] });
    expect(readFileSync(chosen, 'utf8')).toBe('# Parser bug\n');
    expect(readFileSync(join(folder, 'Parser bug-1.png'))).toEqual(Buffer.from('iVBORw==', 'base64'));
  });

  it('never writes outside the chosen folder, whatever a file is called', async () => {
    await writeExport([markdown, { ...image, name: '../../escaped.png' }], join(folder, 'notes.md'));
    expect(readdirSync(folder).sort()).toEqual(['escaped.png', 'notes.md']);
  });
});
