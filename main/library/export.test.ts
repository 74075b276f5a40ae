import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJsonl, exportMarkdown, ExportTooLarge, fileBase, MAX_EXPORT_BYTES } from './export';

const FIXTURES = join(import.meta.dirname, '../../shared/__fixtures__');
const CLI_SESSION = join(FIXTURES, 'cli-session.jsonl');
const TRANSCRIPT = join(FIXTURES, 'transcript.jsonl');
const SID = '56241a37-25bd-4b37-83d4-703159fe853b';
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'byre-export-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let count = 0;
function write(lines: readonly object[] | string): string {
  const path = join(dir, `file-${++count}.jsonl`);
  writeFileSync(
    path,
    typeof lines === 'string' ? lines : lines.map((line) => JSON.stringify(line)).join('\n') + '\n',
  );
  return path;
}

describe('exportMarkdown', () => {
  it('writes what a person would read, with the image as a file of its own', async () => {
    const files = await exportMarkdown(
      { cliFile: CLI_SESSION, transcripts: [] },
      { title: 'Echo and image', sessionId: SID, cwd: '/tmp/byre-test-F2gOeX/work' },
    );
    expect(files.map((file) => [file.name, file.mediaType, file.encoding])).toEqual([
      ['Echo-and-image.md', 'text/markdown', 'utf8'],
      ['Echo-and-image-image-1.png', 'image/png', 'base64'],
    ]);
    expect(files[1]!.data).toBe(PNG);
    expect(files[0]!.data).toBe(
      [
        '# Echo and image',
        '',
        `- Session: \`${SID}\``,
        '- Folder: `/tmp/byre-test-F2gOeX/work`',
        '',
        '**You**',
        '',
        'run echo please',
        '',
        '**Claude**',
        '',
        '> Set the title: `Echo and image`',
        '',
        'Running it.',
        '',
        '> Ran `Bash`: `echo hello-from-bash` → 1 line of output',
        '',
        'It printed **hello**.',
        '',
        '**You**',
        '',
        '![image 1](Echo-and-image-image-1.png)',
        '',
        'What is in this image?',
        '',
        '**Claude**',
        '',
        'A tiny image.',
        '',
      ].join('\n'),
    );
  });

  it('reads Byre’s transcripts when the CLI’s file is gone, and leaves thinking out', async () => {
    const files = await exportMarkdown(
      { cliFile: join(dir, 'cleaned-up.jsonl'), transcripts: [TRANSCRIPT] },
      { title: 'Echo and image', sessionId: SID, cwd: null },
    );
    const markdown = files[0]!.data;
    expect(markdown).toContain('> Ran `Bash`: `echo hello-from-bash` → 1 line of output');
    expect(markdown).toContain('- Folder: `/tmp/byre-test-F2gOeX/work`');
    expect(markdown).not.toContain('I should run echo');
    expect(files).toHaveLength(2);
  });

  it('names the file each file tool touched, and says how each tool call ended', async () => {
    const cwd = '/work/proj';
    const call = (uuid: string, id: string, name: string, input: object) => ({
      type: 'assistant',
      uuid,
      sessionId: 's',
      message: {
        id: `msg_${uuid}`,
        role: 'assistant',
        model: 'm',
        content: [{ type: 'tool_use', id, name, input }],
      },
    });
    const result = (uuid: string, id: string, content: string, isError = false) => ({
      type: 'user',
      uuid,
      sessionId: 's',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }],
      },
    });
    const session = write([
      {
        type: 'user',
        uuid: 'p1',
        sessionId: 's',
        message: { role: 'user', content: 'Fix `parse()` please' },
      },
      call('a1', 't1', 'Read', { file_path: `${cwd}/src/parse.ts` }),
      result('r1', 't1', 'line one\nline two\nline three'),
      call('a2', 't2', 'Edit', { file_path: `${cwd}/src/parse.ts`, old_string: 'a', new_string: 'b' }),
      result('r2', 't2', 'The file has been updated.'),
      call('a3', 't3', 'Write', { file_path: '/elsewhere/notes.md', content: 'x' }),
      result('r3', 't3', 'File created.'),
      call('a4', 't4', 'Bash', { command: 'npm test\n  --silent' }),
      result('r4', 't4', 'Error: 2 tests failed\nmore detail', true),
      call('a5', 't5', 'Grep', { pattern: 'a`b' }),
      result('r5', 't5', ''),
      call('a6', 't6', 'mcp__other__thing', { query: 'what' }),
      call('a7', 't7', 'Bash', { command: 'sleep 100' }),
      result(
        'r7',
        't7',
        "The user doesn't want to proceed with this tool use. The tool use was rejected.",
        true,
      ),
    ]);
    const [markdown] = await exportMarkdown(
      { cliFile: session, transcripts: [] },
      { title: 'Fix', sessionId: 's', cwd },
    );
    const toolLines = markdown!.data.split('\n').filter((line) => line.startsWith('> '));
    expect(toolLines).toEqual([
      '> Read `src/parse.ts` → 3 lines of output',
      '> Edited `src/parse.ts`',
      '> Wrote `/elsewhere/notes.md`',
      '> Ran `Bash`: `npm test --silent` → error: Error: 2 tests failed more detail',
      '> Searched for ``a`b`` → no output',
      '> Used `mcp__other__thing`: `what` → no result',
      '> Ran `Bash`: `sleep 100` → interrupted',
    ]);
    expect(markdown!.data).toContain('Fix `parse()` please');
  });

  it('refuses a conversation too large to hold, with a clear error', async () => {
    const huge = join(dir, 'huge.jsonl');
    writeFileSync(huge, '');
    truncateSync(huge, MAX_EXPORT_BYTES + 1);
    const source = { cliFile: huge, transcripts: [] };
    await expect(exportMarkdown(source, { title: 'Big', sessionId: 's', cwd: null })).rejects.toThrow(
      ExportTooLarge,
    );
    await expect(exportJsonl(source, { title: 'Big', sessionId: 's' })).rejects.toThrow(
      /too large to export/,
    );
  });
});

describe('exportJsonl', () => {
  it('gives the CLI’s file byte for byte', async () => {
    const [file] = await exportJsonl(
      { cliFile: CLI_SESSION, transcripts: [TRANSCRIPT] },
      { sessionId: SID, title: 'Echo and image' },
    );
    expect(file).toMatchObject({
      name: 'Echo-and-image.jsonl',
      mediaType: 'application/x-ndjson',
      encoding: 'utf8',
    });
    expect(file!.data).toBe(readFileSync(CLI_SESSION, 'utf8'));
  });

  it('joins Byre’s transcripts when the CLI’s file is gone, a cut-off line kept apart from the next file', async () => {
    const first = write('{"dir":"send","msg":{}}\n{"dir":"recv","msg":{"type":"assis');
    const second = write('{"dir":"send","msg":{"type":"user"}}\n');
    const [file] = await exportJsonl(
      { cliFile: null, transcripts: [first, second] },
      { sessionId: SID, title: '' },
    );
    expect(file!.name).toBe('conversation-56241a37.jsonl');
    expect(file!.data).toBe(
      '{"dir":"send","msg":{}}\n{"dir":"recv","msg":{"type":"assis\n{"dir":"send","msg":{"type":"user"}}\n',
    );
  });

  it('keeps bytes that are not UTF-8 as they are, in base64', async () => {
    const bytes = Buffer.from([0x7b, 0x7d, 0x0a, 0xff, 0xfe, 0x0a]);
    const path = join(dir, 'latin1.jsonl');
    writeFileSync(path, bytes);
    const [file] = await exportJsonl({ cliFile: path, transcripts: [] }, { sessionId: SID, title: 'x' });
    expect(file!.encoding).toBe('base64');
    expect(Buffer.from(file!.data, 'base64')).toEqual(bytes);
  });
});

describe('file names', () => {
  it('keep letters, digits and dashes', () => {
    expect(fileBase('Fix: the parser’s bug / again!', 's')).toBe('Fix-the-parser-s-bug-again');
    expect(fileBase('Ünïcödé 日本語 title', 's')).toBe('Ünïcödé-日本語-title');
    expect(fileBase('../../etc/passwd', 's')).toBe('etc-passwd');
    expect(fileBase('???', 'abc-123-def')).toBe('conversation-abc123de');
    expect(fileBase('a'.repeat(200), 's')).toHaveLength(80);
  });
});
