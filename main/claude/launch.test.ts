import { describe, it, expect } from 'vitest';
import { buildLaunch, type LaunchOptions } from './launch';

const SEED_ARGS = [
  '--output-format',
  'stream-json',
  '--input-format',
  'stream-json',
  '--verbose',
  '--include-partial-messages',
  '--include-hook-events',
  '--permission-mode',
  'bypassPermissions',
  '--allow-dangerously-skip-permissions',
  '--permission-prompt-tool',
  'stdio',
  '--settings',
  '{"attribution":{"commit":"","pr":""}}',
  '--mcp-config',
  '{"mcpServers":{"byre":{"type":"sdk","name":"byre","alwaysLoad":true}}}',
];

const SID = '3f9d6c1a-2b4e-4f80-9c7d-1e2f3a4b5c6d';
const OTHER = '8a7b6c5d-4e3f-4a1b-8c9d-0e1f2a3b4c5d';

function args(options: Omit<LaunchOptions, 'cwd'>): string[] {
  return buildLaunch({ cwd: '/work/proj', ...options }, {}).args;
}

describe('buildLaunch', () => {
  it("builds exactly the seed's launch line by default", () => {
    const launch = buildLaunch({ cwd: '/work/proj' }, { PATH: '/usr/bin' });
    expect(launch.args).toEqual(SEED_ARGS);
    expect(launch.cwd).toBe('/work/proj');
  });

  it('appends the session flags in equals form', () => {
    expect(args({ sessionId: SID })).toEqual([...SEED_ARGS, `--session-id=${SID}`]);
    expect(args({ resume: SID })).toEqual([...SEED_ARGS, `--resume=${SID}`]);
    expect(args({ resume: SID, resumeSessionAt: OTHER, forkSession: true, sessionId: OTHER })).toEqual([
      ...SEED_ARGS,
      `--session-id=${OTHER}`,
      `--resume=${SID}`,
      `--resume-session-at=${OTHER}`,
      '--fork-session',
    ]);
  });

  it('keeps a dash-leading value inside its flag', () => {
    const line = args({ resume: '-r', resumeSessionAt: '--help' });
    expect(line.slice(SEED_ARGS.length)).toEqual(['--resume=-r', '--resume-session-at=--help']);
    expect(args({ sessionId: '--verbose' }).slice(SEED_ARGS.length)).toEqual(['--session-id=--verbose']);
  });

  it('adds --fork-session only when asked', () => {
    expect(args({ resume: SID })).not.toContain('--fork-session');
    expect(args({ resume: SID, forkSession: true, sessionId: OTHER })).toContain('--fork-session');
  });

  it("leaves the folder's own settings and MCP servers out only when told to", () => {
    const skip = ['--setting-sources=user', '--strict-mcp-config'];
    for (const folderSettings of ['off', 'none'] as const) {
      expect(buildLaunch({ cwd: '/tmp/x', folderSettings }).args).toEqual(expect.arrayContaining(skip));
    }
    for (const folderSettings of ['loaded', undefined] as const) {
      const { args } = buildLaunch({ cwd: '/tmp/x', ...(folderSettings ? { folderSettings } : {}) });
      expect(args.some((arg) => arg.startsWith('--setting-sources') || arg === '--strict-mcp-config')).toBe(
        false,
      );
    }
  });

  it('passes the model in its equals form', () => {
    const line = args({ model: 'claude-sonnet-4-5' });
    expect(line.slice(SEED_ARGS.length)).toEqual(['--model=claude-sonnet-4-5']);
  });

  it.each(['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'] as const)(
    'in %s mode asks the host for permissions over stdio',
    (mode) => {
      const line = args({ permissionMode: mode });
      expect(line[line.indexOf('--permission-mode') + 1]).toBe(mode);
      expect(line[line.indexOf('--permission-prompt-tool') + 1]).toBe('stdio');
      expect(line).toContain('--allow-dangerously-skip-permissions');
      expect(line.filter((arg) => arg === '--permission-mode')).toHaveLength(1);
    },
  );

  it('routes prompts to the host in bypassPermissions mode too, for a switch to a mode that asks', () => {
    expect(args({ permissionMode: 'bypassPermissions' })).toEqual(SEED_ARGS);
  });

  it('removes CLAUDECODE from the environment and keeps the rest, without touching the base', () => {
    const base = { PATH: '/usr/bin', HOME: '/home/u', CLAUDECODE: '1', ANTHROPIC_API_KEY: 'sk-test' };
    const { env } = buildLaunch({ cwd: '/w' }, base);
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
      ANTHROPIC_API_KEY: 'sk-test',
      CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING: 'true',
    });
    expect(base.CLAUDECODE).toBe('1');
  });

  it('turns file checkpoints on for every process, whatever the base says', () => {
    for (const options of [
      { cwd: '/w' },
      { cwd: '/w', resume: SID },
      { cwd: '/w', permissionMode: 'default' as const },
    ]) {
      expect(buildLaunch(options, {}).env.CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING).toBe('true');
    }
    const off = { CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING: 'false' };
    expect(buildLaunch({ cwd: '/w' }, off).env.CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING).toBe('true');
  });

  it('says apart what it changes in the environment, for a CLI run on another host', () => {
    const launch = buildLaunch(
      { cwd: '/w', identity: { name: 'Ada', email: 'ada@example.com' } },
      { PATH: '/usr/bin', SSH_AUTH_SOCK: '/tmp/agent', CLAUDECODE: '1' },
    );
    expect(launch.envSet).toEqual({
      CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING: 'true',
      GIT_AUTHOR_NAME: 'Ada',
      GIT_AUTHOR_EMAIL: 'ada@example.com',
      GIT_COMMITTER_NAME: 'Ada',
      GIT_COMMITTER_EMAIL: 'ada@example.com',
    });
    expect(launch.envUnset).toEqual(['CLAUDECODE']);
  });

  it('sets the git identity only when given one', () => {
    const without = buildLaunch({ cwd: '/w' }, { PATH: '/usr/bin' }).env;
    expect(Object.keys(without).filter((key) => key.startsWith('GIT_'))).toEqual([]);
    const withIdentity = buildLaunch(
      { cwd: '/w', identity: { name: 'Ada Lovelace', email: 'ada@example.com' } },
      { PATH: '/usr/bin', GIT_AUTHOR_NAME: 'Someone Else' },
    ).env;
    expect(withIdentity).toEqual({
      PATH: '/usr/bin',
      CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING: 'true',
      GIT_AUTHOR_NAME: 'Ada Lovelace',
      GIT_AUTHOR_EMAIL: 'ada@example.com',
      GIT_COMMITTER_NAME: 'Ada Lovelace',
      GIT_COMMITTER_EMAIL: 'ada@example.com',
    });
  });

  it('rejects resumeSessionAt or forkSession without resume', () => {
    expect(() => buildLaunch({ cwd: '/w', resumeSessionAt: OTHER })).toThrow(/resume/);
    expect(() => buildLaunch({ cwd: '/w', forkSession: true })).toThrow(/resume/);
    expect(() => buildLaunch({ cwd: '/w', forkSession: true, sessionId: SID })).toThrow(/resume/);
  });

  // Bug: the CLI (2.1.332) refuses this line with "Error: --session-id with --continue or --resume also
  // needs --fork-session." and exits; buildLaunch builds it without complaint.
  it('rejects sessionId with resume unless forkSession is set', () => {
    expect(() => buildLaunch({ cwd: '/w', resume: SID, sessionId: OTHER })).toThrow();
  });
});
