import { describe, expect, it } from 'vitest';
import { appChannels, CommitIdentity } from './app';

/** What the app's channels refuse before main acts on them (main parses every request with these schemas). */

describe('openLink', () => {
  const accepts = (url: string) => appChannels.openLink.request.safeParse({ url }).success;

  it('takes http and https links', () => {
    expect(accepts('https://docs.anthropic.com/en/docs/claude-code')).toBe(true);
    expect(accepts('http://localhost:3000/')).toBe(true);
  });

  it('refuses every other scheme, links that do not parse, and very long ones', () => {
    for (const url of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'smb://server/share',
      'vscode://file/etc/passwd',
      'ms-msdt:/id PCWDiagnostic',
      'https//missing-colon.example',
      '/relative/path',
      '',
      `https://example.com/${'a'.repeat(9000)}`,
    ]) {
      expect(accepts(url), url).toBe(false);
    }
  });
});

describe('CommitIdentity', () => {
  it('takes a name and an email, trimmed, and refuses what git or an environment variable cannot hold', () => {
    expect(CommitIdentity.parse({ name: ' Ada Lovelace ', email: ' ada@example.com ' })).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
    });
    const refusal = (name: string, email: string) =>
      CommitIdentity.safeParse({ name, email }).error?.issues[0]?.message;
    expect(refusal('Ada', 'not an email')).toBe('Enter an email address such as name@example.com.');
    expect(refusal('', 'ada@example.com')).toBe('Enter the name commits are made as.');
    expect(refusal('Ada <a@b.c>', 'ada@example.com')).toMatch(/cannot hold/);
    expect(refusal('Ada\u0000', 'ada@example.com')).toMatch(/cannot hold/);
    expect(refusal('Ada\nLovelace', 'ada@example.com')).toMatch(/cannot hold/);
  });
});
