import { describe, expect, it } from 'vitest';
import { defaultLane, loginOf } from './login';

/** Which lane a new conversation gets by default: the plan's (Terminal) for a subscription, else Stream. */
describe('loginOf and defaultLane', () => {
  const files =
    (found: Record<string, string>) =>
    (path: string): string | null =>
      found[path] ?? null;

  it('takes an API key, a token or another endpoint for API billing, whatever else is logged in', () => {
    const subscribed = files({ '/h/.claude/.credentials.json': '{"claudeAiOauth":{}}' });
    for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'CLAUDE_CODE_USE_BEDROCK']) {
      expect(loginOf({ HOME: '/h', [name]: 'x' }, subscribed)).toBe('api');
    }
  });

  it("finds a subscription by the CLI's credentials, its OAuth token or the account in its config", () => {
    expect(loginOf({ HOME: '/h' }, files({ '/h/.claude/.credentials.json': '{"claudeAiOauth":{}}' }))).toBe(
      'subscription',
    );
    expect(loginOf({ HOME: '/h', CLAUDE_CODE_OAUTH_TOKEN: 't' }, files({}))).toBe('subscription');
    expect(
      loginOf({ HOME: '/h' }, files({ '/h/.claude.json': '{"oauthAccount":{"emailAddress":"a"}}' })),
    ).toBe('subscription');
    expect(
      loginOf(
        { HOME: '/h', CLAUDE_CONFIG_DIR: '/c' },
        files({ '/c/.credentials.json': '{"claudeAiOauth":{}}' }),
      ),
    ).toBe('subscription');
  });

  it('says unknown, or api, for what it cannot take as a subscription; a broken file is no login', () => {
    expect(loginOf({ HOME: '/h' }, files({}))).toBe('unknown');
    expect(loginOf({ HOME: '/h' }, files({ '/h/.claude.json': '{"primaryApiKey":"k"}' }))).toBe('api');
    expect(loginOf({ HOME: '/h' }, files({ '/h/.claude/.credentials.json': '{not json' }))).toBe('unknown');
  });

  it('gives a subscription the Terminal lane and everything else Stream, unless the setting chose', () => {
    expect(defaultLane('auto', 'subscription')).toBe('terminal');
    expect(defaultLane('auto', 'api')).toBe('stream');
    expect(defaultLane('auto', 'unknown')).toBe('stream');
    expect(defaultLane('stream', 'subscription')).toBe('stream');
    expect(defaultLane('terminal', 'api')).toBe('terminal');
  });
});
