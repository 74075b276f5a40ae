import { describe, expect, it } from 'vitest';
import { draftFinish, SUBJECT_MAX_CHARS } from './drafts';

/**
 * The merge's and the pull request's drafts: a subject git shows whole, from the title or else the first
 * prompt; what was asked and which files changed, bounded; Markdown that shows prompts and paths as typed.
 */

describe('draftFinish', () => {
  it('titles the work by the conversation, lists its prompts and files, and says it was made with Byre', () => {
    const drafts = draftFinish({
      title: 'Fix the login form',
      prompts: ['The login form forgets the email\nwhen the password is wrong', 'Add a test for it'],
      files: ['src/login.ts', 'src/login.test.ts'],
      branch: 'fix-login',
    });
    expect(drafts.commitMessage).toBe(
      [
        'Fix the login form',
        '',
        'Asked in the conversation:',
        '- The login form forgets the email',
        '- Add a test for it',
        '',
        'Files changed:',
        '- src/login.ts',
        '- src/login.test.ts',
        '',
      ].join('\n'),
    );
    expect(drafts.title).toBe('Fix the login form');
    expect(drafts.body).toBe(
      [
        '## What was asked',
        '',
        '- The login form forgets the email',
        '- Add a test for it',
        '',
        '## Files changed',
        '',
        '- `src/login.ts`',
        '- `src/login.test.ts`',
        '',
        'Made with Byre',
        '',
      ].join('\n'),
    );
  });

  it('takes the first prompt for a subject without a title, cut at a word to 72 characters', () => {
    const prompt =
      '  make the settings screen remember which section was open last time and reopen it there please';
    const drafts = draftFinish({ title: null, prompts: [prompt], files: [], branch: 'b' });
    const subject = drafts.commitMessage.split('\n')[0] ?? '';
    expect(subject.length).toBeLessThanOrEqual(SUBJECT_MAX_CHARS);
    expect(subject).toBe('make the settings screen remember which section was open last time and…');
    expect(drafts.title).toBe(subject);
  });

  it('names the branch when the conversation said nothing, and leaves out empty sections', () => {
    const drafts = draftFinish({ title: ' ', prompts: ['', '\n'], files: [], branch: 'tidy-up' });
    expect(drafts.commitMessage).toBe('Work from tidy-up\n');
    expect(drafts.body).toBe('Made with Byre\n');
  });

  it('lists at most 10 prompts and 50 files, and counts the rest', () => {
    const drafts = draftFinish({
      title: 'Many',
      prompts: Array.from({ length: 12 }, (_, at) => `prompt ${at + 1}`),
      files: Array.from({ length: 51 }, (_, at) => `f${at + 1}.ts`),
      branch: 'b',
    });
    const lines = drafts.commitMessage.split('\n');
    expect(lines.filter((line) => line.startsWith('- prompt'))).toHaveLength(10);
    expect(lines).toContain('- and 2 more prompts');
    expect(lines.filter((line) => /^- f\d+\.ts$/.test(line))).toHaveLength(50);
    expect(lines).toContain('- and 1 more file');
    expect(drafts.body).toContain('\n- and 1 more file\n');
    expect(drafts.body).not.toContain('`f51.ts`');
  });

  it('shows prompts and paths as typed in Markdown', () => {
    const drafts = draftFinish({
      title: 'T',
      prompts: ['use *bold* and <b>tags</b> # not a heading'],
      files: ['odd`name.ts'],
      branch: 'b',
    });
    expect(drafts.body).toContain('- use \\*bold\\* and \\<b\\>tags\\</b\\> \\# not a heading\n');
    expect(drafts.body).toContain('- `` odd`name.ts ``\n');
    // The commit message is plain text: nothing escaped there.
    expect(drafts.commitMessage).toContain('- use *bold* and <b>tags</b> # not a heading\n');
  });
});
