import { describe, it, expect } from 'vitest';
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import type { TurnImage } from '../../shared/ipc';
import { OutgoingLine, OutgoingUserMessage, type OutgoingUserContent } from '../../shared/protocol';
import { userContent } from './conversation';
import { fileRewind } from './file-rewind';

const SESSION_ID = '5f0c2a9e-3b7d-4c1e-9a55-0d8e6f1b2c34';

async function image(mediaType: 'image/png' | 'image/jpeg', background: string): Promise<TurnImage> {
  const base = sharp({ create: { width: 8, height: 6, channels: 3, background } });
  const bytes = mediaType === 'image/png' ? await base.png().toBuffer() : await base.jpeg().toBuffer();
  return { mediaType, data: bytes.toString('base64') };
}

const userLine = (content: OutgoingUserContent) => ({
  type: 'user',
  message: { role: 'user', content },
  parent_tool_use_id: null,
  session_id: SESSION_ID,
  uuid: randomUUID(),
});

describe('userContent', () => {
  it('is the plain string when there are no images', () => {
    expect(userContent('hello there', [])).toBe('hello there');
    expect(userContent('  spaced  \n', [])).toBe('  spaced  \n');
  });

  it('puts image blocks first, in order, then the text', async () => {
    const first = await image('image/png', '#f00');
    const second = await image('image/jpeg', '#00f');
    expect(userContent('what differs?', [first, second])).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: first.data } },
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: second.data } },
      { type: 'text', text: 'what differs?' },
    ]);
  });

  it('keeps the text as typed, surrounding whitespace included', async () => {
    const one = await image('image/png', '#0f0');
    const content = userContent('  look\n', [one]);
    expect(Array.isArray(content) && content[1]).toEqual({ type: 'text', text: '  look\n' });
  });

  it('leaves out a blank text block', async () => {
    const first = await image('image/png', '#f00');
    const second = await image('image/jpeg', '#00f');
    for (const text of ['', '   ', '\n\t ']) {
      const content = userContent(text, [first, second]);
      expect(content).toEqual([
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: first.data } },
        { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: second.data } },
      ]);
    }
  });

  it('produces lines the outgoing schemas accept', async () => {
    const first = await image('image/png', '#f00');
    const second = await image('image/jpeg', '#00f');
    for (const content of [
      userContent('text only', []),
      userContent('with pictures', [first, second]),
      userContent('', [first]),
    ]) {
      const line = userLine(content);
      expect(OutgoingUserMessage.safeParse(line).success).toBe(true);
      const parsed = OutgoingLine.safeParse(line);
      expect(parsed.success).toBe(true);
      expect(parsed.data).toEqual(line);
    }
  });

  it('the schema would refuse what userContent never produces', () => {
    // An empty block list and a user line without a uuid are both invalid; userContent avoids the first.
    expect(OutgoingUserMessage.safeParse(userLine([])).success).toBe(false);
    const { uuid: _uuid, ...withoutUuid } = userLine('hi');
    expect(OutgoingLine.safeParse(withoutUuid).success).toBe(false);
  });
});

describe('fileRewind', () => {
  it("keeps a dry run's files and counts, with no reason", () => {
    expect(
      fileRewind({ canRewind: true, filesChanged: ['/w/a.txt', '/w/b.txt'], insertions: 2, deletions: 3 }),
    ).toEqual({
      canRewind: true,
      filesChanged: ['/w/a.txt', '/w/b.txt'],
      insertions: 2,
      deletions: 3,
      fileChanges: null,
      byCommand: [],
      reason: null,
    });
  });

  it('fills in what the CLI leaves out', () => {
    expect(fileRewind({ canRewind: true, skippedLinks: 0 })).toEqual({
      canRewind: true,
      filesChanged: [],
      insertions: 0,
      deletions: 0,
      fileChanges: null,
      byCommand: [],
      reason: null,
    });
  });

  it('says in plain words why nothing can be restored', () => {
    const noCheckpoint = fileRewind({
      canRewind: false,
      error: 'No file checkpoint found for this message.',
    });
    expect(noCheckpoint).toMatchObject({ canRewind: false, filesChanged: [], insertions: 0, deletions: 0 });
    expect(noCheckpoint.reason).toMatch(/kept no copy of the files for this message/);
    expect(noCheckpoint.reason).toMatch(/Write, Edit, NotebookEdit/);
    expect(noCheckpoint.reason).toMatch(/not of changes made through Bash/);

    expect(fileRewind({ canRewind: false, error: 'File rewinding is not enabled.' }).reason).toMatch(
      /was not keeping copies of files/,
    );
    expect(
      fileRewind({ canRewind: false, error: 'Failed to rewind: EACCES: permission denied' }).reason,
    ).toBe('Restoring the files failed: EACCES: permission denied');
    expect(fileRewind({ canRewind: false, error: 'Something new.' }).reason).toBe(
      'Claude Code cannot restore the files: Something new.',
    );
    expect(fileRewind({ canRewind: false }).reason).toBe('Claude Code cannot restore the files.');
  });
});
