import { describe, expect, it } from 'vitest';
import { invokeChannels } from './ipc';

/** What the IPC contract refuses before main acts on it (main parses every request with these schemas). */

describe('openLink', () => {
  const accepts = (url: string) => invokeChannels.openLink.request.safeParse({ url }).success;

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
