import { execFile, execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { commandLinesWithHome, processesWithHome, seedInteractiveCli } from '../../e2e/fixtures/cli-env';
import { Gate } from '../../e2e/fake-model/server';
import type { ConversationSnapshot } from '../../shared/ipc';
import { createRemoteWorld, REMOTE_ALIAS, type RemoteWorld } from '../test-support/sshd';
import { openBackend, type BackendHarness } from '../test-support/invoke';
import { gitIn } from '../changes/test-support/git';
import { ONE_PIXEL_PNG } from '../test-support/images';

/**
 * Conversations on another host through the backend the UI talks to: the hosts of the one ssh config file,
 * and a conversation started on one, over the test's own sshd on 127.0.0.1, with the real CLI on the
 * "remote" (this machine under another HOME) against the fake model.
 */

const run = promisify(execFile);

let harness: BackendHarness;
let remote: RemoteWorld;
let sshConfig: string;
let othersBefore: string[] = [];
/** The session of the first conversation on the host. */
let firstSession = '';

beforeAll(async () => {
  // Masters there before these tests are not this backend's to close (another Byre's, say).
  othersBefore = masters();
  // The file is given now, and filled once the host (which needs the fake model's address) is up.
  const folder = mkdtempSync(join(tmpdir(), 'byre-ssh-config-'));
  sshConfig = join(folder, 'ssh_config');
  harness = await openBackend({ dontAsk: true, sshConfigFile: sshConfig });
  remote = await createRemoteWorld(harness.world.fake.url);
  copyFileSync(remote.sshd.configFile, sshConfig);
});

afterAll(async () => {
  await harness?.dispose();
  await remote?.dispose();
  if (sshConfig) rmSync(dirname(sshConfig), { recursive: true, force: true });
});

// The master connection ssh keeps for the host (ControlPersist), which would outlive Byre for minutes. It
// names itself by its socket, in the backend's own folder for them (its environment is overwritten so).
const masters = () =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return /^ssh: \/tmp\/byre-[^/]+\/[0-9a-f]{40} \[mux\]/.test(
          readFileSync(`/proc/${pid}/cmdline`, 'utf8'),
        );
      } catch {
        return false;
      }
    });

const replyText = (conversation: ConversationSnapshot) =>
  harness
    .eventsOf(conversation.conversationId)
    .flatMap((event) =>
      event.kind === 'message' && event.message.type === 'assistant'
        ? event.message.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : []))
        : [],
    );

const checksOf = (conversationId: string) =>
  harness.eventsOf(conversationId).flatMap((event) => (event.kind === 'check' ? [event.check] : []));

/**
 * The host's git, on its PATH there only (through its ~/.bashrc), saying each time it runs: the host is this
 * machine, whose files would be the same from here, so this is what shows that git ran there.
 */
function logGitThere(): { calls: () => string; stop: () => void } {
  const log = join(remote.home, 'git-calls.log');
  mkdirSync(join(remote.home, 'bin'), { recursive: true });
  writeFileSync(
    join(remote.home, 'bin', 'git'),
    `#!/bin/sh\nprintf '%s\\n' "$*" >> ${log}\nexec /usr/bin/git "$@"\n`,
    { mode: 0o755 },
  );
  const bashrc = join(remote.home, '.bashrc');
  writeFileSync(bashrc, 'PATH="$HOME/bin:$PATH"\n');
  writeFileSync(log, '');
  const stop = () => rmSync(bashrc, { force: true });
  // Whatever the test does, the tests after it have the host's shell as it was.
  onTestFinished(stop);
  return { calls: () => readFileSync(log, 'utf8'), stop };
}

describe('conversations on another host', () => {
  it('lists the hosts of the config file', async () => {
    expect(await harness.invoke('remoteHosts', {})).toEqual({
      configFile: sshConfig,
      hosts: [REMOTE_ALIAS],
    });
  });

  // Before any conversation: a master connection made then would be used without a key check.
  it('refuses a host whose key changed, saying why, and offers no way around it', async () => {
    const other = mkdtempSync(join(tmpdir(), 'byre-other-key-'));
    try {
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(other, 'key')]);
      const [type, key] = readFileSync(join(other, 'key.pub'), 'utf8').split(' ');
      writeFileSync(remote.sshd.unknownKnownHostsFile, `[127.0.0.1]:${remote.sshd.port} ${type} ${key}\n`);
      copyFileSync(remote.sshd.unknownKeyConfigFile, sshConfig);
      const refused = await harness.backend.invoke('startConversation', {
        cwd: remote.cwd,
        host: REMOTE_ALIAS,
      });
      expect(refused).toMatchObject({
        ok: false,
        error: {
          name: 'RemoteProblem',
          message: expect.stringMatching(/host key of byre-remote has changed/),
        },
      });
      expect(!refused.ok && refused.error.hostKey).toBeFalsy();
      // Nor through the channel that accepts an unknown one, with the key the host offers now.
      const offered = `${remote.sshd.fingerprint} (ssh-ed25519)`;
      const around = await harness.backend.invoke('acceptHostKey', {
        host: REMOTE_ALIAS,
        fingerprints: [offered],
      });
      expect(around).toMatchObject({
        ok: false,
        error: { name: 'RemoteProblem', message: expect.stringMatching(/already has a key for byre-remote/) },
      });
      expect(
        readFileSync(remote.sshd.unknownKnownHostsFile, 'utf8').split('\n').filter(Boolean),
      ).toHaveLength(1);
    } finally {
      writeFileSync(remote.sshd.unknownKnownHostsFile, '');
      copyFileSync(remote.sshd.configFile, sshConfig);
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('shows an unknown host key’s fingerprint, and connects once it is accepted as shown', async () => {
    copyFileSync(remote.sshd.unknownKeyConfigFile, sshConfig);
    try {
      const refused = await harness.backend.invoke('startConversation', {
        cwd: remote.cwd,
        host: REMOTE_ALIAS,
      });
      const shown = [`${remote.sshd.fingerprint} (ssh-ed25519)`];
      expect(refused).toMatchObject({
        ok: false,
        error: {
          name: 'RemoteProblem',
          message: expect.stringContaining(`host key of byre-remote is not known`),
          hostKey: { host: REMOTE_ALIAS, fingerprints: shown },
        },
      });
      expect(!refused.ok && refused.error.message).toContain(remote.sshd.fingerprint);
      // Only the key shown is ever accepted.
      const wrong = await harness.backend.invoke('acceptHostKey', {
        host: REMOTE_ALIAS,
        fingerprints: ['SHA256:AAAAnotTheKeyShownAAAAAAAAAAAAAAAAAAAAAAAAA (ssh-ed25519)'],
      });
      expect(wrong).toMatchObject({
        ok: false,
        error: { message: expect.stringMatching(/not the one shown/) },
      });
      await harness.invoke('acceptHostKey', { host: REMOTE_ALIAS, fingerprints: shown });
      expect(readFileSync(remote.sshd.unknownKnownHostsFile, 'utf8')).toContain(
        `[127.0.0.1]:${remote.sshd.port} ssh-ed25519 `,
      );
      const conversation = await harness.invoke('startConversation', { cwd: remote.cwd, host: REMOTE_ALIAS });
      expect(conversation.host).toBe(REMOTE_ALIAS);
      await harness.invoke('closeConversation', { conversationId: conversation.conversationId });
    } finally {
      copyFileSync(remote.sshd.configFile, sshConfig);
    }
  });

  it('starts one in a folder there, says which host it is on, and it answers', async () => {
    harness.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Hello from the host.' }] });
    const conversation = await harness.invoke('startConversation', { cwd: remote.cwd, host: REMOTE_ALIAS });
    expect(conversation).toMatchObject({ host: REMOTE_ALIAS, cwd: realpathSync(remote.cwd) });
    // Its folder's own settings, read there, need no trust: loaded, as a folder's here would be.
    expect(conversation.folderSettingsOff).toBeUndefined();
    expect(processesWithHome(remote.home).length).toBeGreaterThan(0);
    await harness.invoke('send', { conversationId: conversation.conversationId, text: 'hello?' });
    await harness.when(() => replyText(conversation).includes('Hello from the host.'));
    await harness.invoke('closeConversation', { conversationId: conversation.conversationId });
    firstSession = conversation.sessionId;
  });

  it('lists a conversation Byre ran on the host under that host, and resumes it there from the library', async () => {
    // Listed under the host, with its folder once the index has read that far.
    const listed = await harness.when(async () => {
      const { rows } = await harness.invoke('libraryList', {});
      return rows.find(
        (row) =>
          row.sessionId === firstSession && row.host === REMOTE_ALIAS && row.cwd === realpathSync(remote.cwd),
      );
    });
    expect(listed).toMatchObject({ resumable: true });
    harness.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Resumed from the library.' }] });
    const resumed = await harness.invoke('resumeSaved', { sessionId: firstSession });
    expect(resumed).toMatchObject({ host: REMOTE_ALIAS, sessionId: firstSession });
    await harness.invoke('send', { conversationId: resumed.conversationId, text: 'still with me?' });
    await harness.when(() => replyText(resumed).includes('Resumed from the library.'));
    expect(JSON.stringify(harness.world.fake.messageRequests().at(-1))).toContain('hello?');
    await harness.invoke('closeConversation', { conversationId: resumed.conversationId });
  });

  it('asks before a tool runs there, and runs it there once allowed', async () => {
    const marker = join(remote.cwd, 'allowed-there.txt');
    harness.world.fake.enqueue(
      {
        blocks: [
          {
            type: 'tool_use',
            name: 'Bash',
            input: { command: 'touch allowed-there.txt', description: 'make it' },
          },
        ],
      },
      { blocks: [{ type: 'text', text: 'Made it there.' }] },
    );
    const conversation = await harness.invoke('startConversation', {
      cwd: remote.cwd,
      host: REMOTE_ALIAS,
      permissionMode: 'default',
    });
    const { conversationId } = conversation;
    await harness.invoke('send', { conversationId, text: 'make the file' });
    const request = await harness.when(() =>
      harness.eventsOf(conversationId).find((event) => event.kind === 'permission_request'),
    );
    expect(request).toMatchObject({ toolName: 'Bash', input: { command: 'touch allowed-there.txt' } });
    // Nothing runs while it waits.
    expect(existsSync(marker)).toBe(false);
    if (request.kind !== 'permission_request') throw new Error('not a permission request');
    await harness.invoke('answerPermission', {
      conversationId,
      requestId: request.requestId,
      answer: { behavior: 'allow', remember: false },
    });
    await harness.when(() => replyText(conversation).includes('Made it there.'));
    expect(existsSync(marker)).toBe(true);
    // Made by a process of the host's, under its HOME: the session file is there (once the CLI has
    // written it, in its own time), not here.
    const projects = join(remote.home, '.claude', 'projects', remote.cwd.replace(/[^a-zA-Z0-9]/g, '-'));
    await vi.waitFor(() => expect(existsSync(join(projects, `${conversation.sessionId}.jsonl`))).toBe(true), {
      timeout: 20_000,
      interval: 100,
    });
    await harness.invoke('closeConversation', { conversationId });
  });

  it('carries on a session there by its id, as a tab kept across a restart does', async () => {
    harness.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Carried on.' }] });
    const conversation = await harness.invoke('startConversation', {
      cwd: remote.cwd,
      host: REMOTE_ALIAS,
      resume: firstSession,
    });
    expect(conversation).toMatchObject({ host: REMOTE_ALIAS, sessionId: firstSession });
    await harness.invoke('send', { conversationId: conversation.conversationId, text: 'and now?' });
    await harness.when(() => replyText(conversation).includes('Carried on.'));
    expect(JSON.stringify(harness.world.fake.messageRequests().at(-1))).toContain('hello?');
    await harness.invoke('closeConversation', { conversationId: conversation.conversationId });
    // On this computer a saved session is opened from the library, then resumed: never started blind.
    const local = await harness.backend.invoke('startConversation', {
      cwd: harness.world.cwd,
      resume: firstSession,
    });
    expect(local).toMatchObject({ ok: false, error: { name: 'NotSupported' } });
  });

  it('offers none of this computer’s files to a conversation on a host, and branches it there', async () => {
    const conversation = await harness.invoke('startConversation', { cwd: remote.cwd, host: REMOTE_ALIAS });
    const { conversationId } = conversation;
    // This computer has a folder of the same path (the "host" is this machine): its files are not offered.
    writeFileSync(join(remote.cwd, 'here.txt'), 'x');
    expect(await harness.invoke('findFiles', { conversationId, query: 'here', limit: 10 })).toEqual({
      matches: [],
      total: 0,
      truncated: false,
    });
    harness.world.fake.enqueue({ blocks: [{ type: 'text', text: 'A branch on the host.' }] });
    const branch = await harness.invoke('forkConversation', {
      from: { conversationId },
      at: null,
      message: { text: 'start over', images: [] },
    });
    expect(branch.snapshot).toMatchObject({ host: REMOTE_ALIAS, cwd: realpathSync(remote.cwd) });
    await harness.when(() => replyText(branch.snapshot).includes('A branch on the host.'));
    for (const id of [conversationId, branch.snapshot.conversationId]) {
      await harness.invoke('closeConversation', { conversationId: id });
    }
  });

  it('runs its "Done when" check on the host, in the folder there, keeping Claude going until it passes', async () => {
    const { fake } = harness.world;
    const flag = 'checked-there.txt';
    fake.enqueue(
      { blocks: [{ type: 'text', text: 'I think it is done.' }] },
      {
        blocks: [
          { type: 'tool_use', name: 'Bash', input: { command: `touch ${flag}`, description: 'mark' } },
        ],
      },
      { blocks: [{ type: 'text', text: 'Now it is.' }] },
    );
    const conversation = await harness.invoke('startConversation', { cwd: remote.cwd, host: REMOTE_ALIAS });
    const { conversationId } = conversation;
    // $HOME tells the host ("remote" is this machine under its own HOME) from this computer.
    const command = `echo "ran in $(pwd -P) as $HOME"; test -f ${flag}`;
    await harness.invoke('setDoneWhen', { conversationId, command, folderDefault: true });
    const before = fake.messageRequests().length;
    await harness.invoke('send', { conversationId, text: 'finish it' });
    const finished = await harness.when(() => {
      const done = checksOf(conversationId).filter((check) => check.status !== 'running');
      return done.length === 2 ? done : undefined;
    });
    expect(finished.map((check) => [check.round, check.status, check.summary])).toEqual([
      [1, 'failed', 'exit 1'],
      [2, 'passed', 'exit 0'],
    ]);
    expect(finished[0]?.output).toContain(`ran in ${realpathSync(remote.cwd)} as ${remote.home}`);
    // Claude was kept going with the failure in front of it.
    const asked = fake.messageRequests().slice(before);
    expect(JSON.stringify(asked[1]?.body)).toContain(`Command: ${command.replaceAll('"', '\\"')}`);
    await harness.when(() => replyText(conversation).includes('Now it is.'));
    await harness.invoke('closeConversation', { conversationId });

    // The folder's default is the host's folder's: a new conversation there starts with it, and one in a
    // folder of the same path on this computer does not.
    const again = await harness.invoke('startConversation', { cwd: remote.cwd, host: REMOTE_ALIAS });
    await harness.when(() =>
      harness
        .eventsOf(again.conversationId)
        .some((event) => event.kind === 'done_when' && event.command === command),
    );
    const here = await harness.invoke('startConversation', { cwd: remote.cwd });
    expect(harness.eventsOf(here.conversationId).some((event) => event.kind === 'done_when')).toBe(false);
    // The tests after this one start there without it.
    await harness.invoke('setDoneWhen', {
      conversationId: again.conversationId,
      command: '',
      folderDefault: true,
    });
    for (const id of [again.conversationId, here.conversationId]) {
      await harness.invoke('closeConversation', { conversationId: id });
    }
  });

  it('ends a check on the host when the user stops Claude, leaving nothing running there', async () => {
    harness.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Checking now.' }] });
    const conversation = await harness.invoke('startConversation', { cwd: remote.cwd, host: REMOTE_ALIAS });
    const { conversationId } = conversation;
    // A check that would run for minutes, with a child of its own, as a test runner's would be.
    const marker = `byre-check-${process.pid}-${Date.now()}`;
    await harness.invoke('setDoneWhen', {
      conversationId,
      command: `sh -c 'sleep 300; : ${marker}' & sleep 300`,
      folderDefault: false,
    });
    const left = () => commandLinesWithHome(remote.home).filter((line) => line.includes(marker));
    await harness.invoke('send', { conversationId, text: 'go' });
    // Processes say nothing as they start and end: looked at again every 100 ms.
    await vi.waitFor(() => expect(left().length).toBeGreaterThan(0), { timeout: 60_000, interval: 100 });
    await harness.invoke('interrupt', { conversationId });
    const stopped = await harness.when(() =>
      checksOf(conversationId).find((check) => check.status === 'stopped'),
    );
    expect(stopped.summary).toBe('stopped');
    await vi.waitFor(() => expect(left()).toEqual([]), { timeout: 60_000, interval: 100 });
    await harness.invoke('closeConversation', { conversationId });
  });

  it('over the host’s channel: a question answered, the model switched, a reply stopped mid-stream, and a rewind at a message', async () => {
    const { fake } = harness.world;
    const question = {
      question: 'Which database should we use?',
      header: 'Database',
      options: [
        { label: 'SQLite', description: 'One file' },
        { label: 'Postgres', description: 'A server' },
      ],
      multiSelect: false,
    };
    const held = new Gate();
    fake.enqueue(
      { blocks: [{ type: 'tool_use', name: 'AskUserQuestion', input: { questions: [question] } }] },
      { blocks: [{ type: 'text', text: 'SQLite it is.' }] },
      { blocks: [{ type: 'text', text: 'On the other model.' }] },
      {
        blocks: [{ type: 'text', text: 'a long reply that is stopped before its end' }],
        hold: { after: 2, until: held },
      },
      { blocks: [{ type: 'text', text: 'The branch answers.' }] },
    );
    const conversation = await harness.invoke('startConversation', {
      cwd: remote.cwd,
      host: REMOTE_ALIAS,
      permissionMode: 'default',
    });
    const { conversationId } = conversation;
    const results = () =>
      harness
        .eventsOf(conversationId)
        .filter((event) => event.kind === 'message' && event.message.type === 'result').length;

    // A question: asked through the channel, answered, and the answer is what the model gets.
    await harness.invoke('send', { conversationId, text: 'pick a database' });
    const asked = await harness.when(() =>
      harness
        .eventsOf(conversationId)
        .find((event) => event.kind === 'permission_request' && event.toolName === 'AskUserQuestion'),
    );
    if (asked.kind !== 'permission_request') throw new Error('not a question');
    await harness.invoke('answerQuestions', {
      conversationId,
      requestId: asked.requestId,
      answer: { behavior: 'answer', answers: { [question.question]: 'SQLite' } },
    });
    await harness.when(() => replyText(conversation).includes('SQLite it is.'));
    const answered = fake.messageRequests().at(-1);
    expect(JSON.stringify(answered?.body)).toContain('\\"Which database should we use?\\"=\\"SQLite\\"');
    await harness.when(() => results() === 1);

    // The model, switched: the next turn asks for it.
    expect(await harness.invoke('setModel', { conversationId, model: 'claude-sonnet-4-5' })).toEqual({
      model: 'claude-sonnet-4-5',
    });
    const second = await harness.invoke('send', { conversationId, text: 'and now?' });
    await harness.when(() => replyText(conversation).includes('On the other model.'));
    expect(fake.messageRequests().at(-1)?.model).toBe('claude-sonnet-4-5');
    await harness.when(() => results() === 2);

    // A reply still streaming, stopped: the turn ends there, and the rest never comes.
    await harness.invoke('send', { conversationId, text: 'say something long' });
    await harness.when(() =>
      harness
        .eventsOf(conversationId)
        .some((event) => event.kind === 'message' && JSON.stringify(event.message).includes('"a long "')),
    );
    await harness.invoke('interrupt', { conversationId });
    await harness.when(() => results() === 3);
    held.release();
    expect(replyText(conversation).join(' ')).not.toContain('before its end');

    // A rewind at the second message: a branch on the host whose history stops before it.
    const events = harness.eventsOf(conversationId);
    const before = events.slice(
      0,
      events.findIndex((event) => event.kind === 'prompt' && event.uuid === second.uuid),
    );
    const at = before
      .flatMap((event) =>
        event.kind === 'message' && event.message.type === 'assistant' ? [event.message.uuid] : [],
      )
      .at(-1);
    expect(at).toBeDefined();
    const branch = await harness.invoke('forkConversation', {
      from: { conversationId },
      at: at ?? null,
      message: { text: 'and instead?', images: [] },
    });
    expect(branch.snapshot).toMatchObject({ host: REMOTE_ALIAS });
    await harness.when(() => replyText(branch.snapshot).includes('The branch answers.'));
    const history = JSON.stringify(fake.messageRequests().at(-1)?.body);
    expect(history).toContain('pick a database');
    expect(history).toContain('and instead?');
    expect(history).not.toContain('and now?');
    for (const id of [conversationId, branch.snapshot.conversationId]) {
      await harness.invoke('closeConversation', { conversationId: id });
    }
  });

  it('helps with the folder field: the folders there as typed, and those conversations ran in before', async () => {
    const parent = dirname(remote.cwd);
    expect(await harness.invoke('remoteFolders', { host: REMOTE_ALIAS, prefix: `${parent}/` })).toEqual({
      folders: [join(parent, 'home'), join(parent, 'work')],
      // The conversation the test before started.
      recent: [realpathSync(remote.cwd)],
    });
    expect(
      (await harness.invoke('remoteFolders', { host: REMOTE_ALIAS, prefix: `${parent}/wo` })).folders,
    ).toEqual([join(parent, 'work')]);
    // Empty: the home folder's (the host's, not this computer's).
    mkdirSync(join(remote.home, 'code'));
    expect((await harness.invoke('remoteFolders', { host: REMOTE_ALIAS, prefix: '' })).folders).toEqual([
      join(remote.home, 'code'),
    ]);
  });

  it('asks before a folder’s own settings on the host run, from its files there, and loads them once trusted', async () => {
    // A folder there whose settings run a hook (a SessionStart one, at each start of the CLI).
    const folder = join(remote.home, 'hooked');
    const marker = join(folder, 'hook-ran.txt');
    mkdirSync(join(folder, '.claude'), { recursive: true });
    writeFileSync(
      join(folder, '.claude', 'settings.json'),
      JSON.stringify({
        hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `echo "$HOME" > '${marker}'` }] }] },
      }),
    );
    // And what a cloned repository carries besides: a skill that allows Bash, instructions for Claude.
    mkdirSync(join(folder, '.claude', 'skills', 'deploy'), { recursive: true });
    writeFileSync(
      join(folder, '.claude', 'skills', 'deploy', 'SKILL.md'),
      '---\nname: deploy\ndescription: Ships it\nallowed-tools: Bash\n---\nDeploy.\n',
    );
    writeFileSync(join(folder, 'CLAUDE.md'), 'Push to main. @notes.md\n');
    writeFileSync(join(folder, 'notes.md'), 'More.\n');
    try {
      // Nothing starts before the answer; the question is the host's folder's.
      const asked = await harness.backend.invoke('startConversation', { cwd: folder, host: REMOTE_ALIAS });
      expect(asked).toMatchObject({ ok: false, error: { name: 'TrustNeeded', folder, host: REMOTE_ALIAS } });
      const view = await harness.invoke('folderTrust', { cwd: folder, host: REMOTE_ALIAS });
      expect(view).toMatchObject({ folder, host: REMOTE_ALIAS, needsTrust: true, trusted: false });
      expect(view.items).toEqual([
        { file: '.claude/settings.json', kind: 'hook', text: expect.stringContaining('SessionStart') },
        { file: '.claude/skills/deploy/SKILL.md', kind: 'skill', text: 'Skill “deploy”: Ships it' },
        {
          file: '.claude/skills/deploy/SKILL.md',
          kind: 'allowRule',
          text: 'Allows without asking, while it runs: Bash',
        },
        {
          file: 'CLAUDE.md',
          kind: 'instructions',
          text: 'Instructions for Claude (2 lines): Push to main. @notes.md',
        },
        {
          file: 'notes.md',
          kind: 'instructions',
          text: 'Imported into Claude’s instructions by CLAUDE.md (2 lines)',
        },
      ]);
      expect(existsSync(marker)).toBe(false);

      // Opened without them: the hook does not run there.
      await harness.invoke('decideTrust', { folder, host: REMOTE_ALIAS, digest: view.digest, trust: false });
      const without = await harness.invoke('startConversation', { cwd: folder, host: REMOTE_ALIAS });
      expect(without.folderSettingsOff).toBe(true);
      harness.world.fake.enqueue({ blocks: [{ type: 'text', text: 'No hook.' }] });
      await harness.invoke('send', { conversationId: without.conversationId, text: 'hi' });
      // The turn's end, as the header's Trust folder… waits for it.
      await harness.when(() =>
        harness
          .eventsOf(without.conversationId)
          .some((event) => event.kind === 'message' && event.message.type === 'result'),
      );
      expect(replyText(without)).toContain('No hook.');
      expect(existsSync(marker)).toBe(false);

      // Trusted from the conversation: the CLI starts again there with them, and the hook runs on the host.
      await harness.invoke('decideTrust', { folder, host: REMOTE_ALIAS, digest: view.digest, trust: true });
      const withThem = await harness.invoke('useFolderSettings', { conversationId: without.conversationId });
      expect(withThem.folderSettingsOff).toBeFalsy();
      await vi.waitFor(() => expect(readFileSync(marker, 'utf8').trim()).toBe(remote.home), {
        timeout: 30_000,
        interval: 100,
      });
      await harness.invoke('closeConversation', { conversationId: without.conversationId });
      // Kept for that host's folder: a folder of the same path on this computer is not trusted by it.
      expect((await harness.invoke('folderTrust', { cwd: folder })).trusted).toBe(false);
      const { folders } = await harness.invoke('trustedFolders', {});
      expect(folders.map((trusted) => trusted.folder)).toContain(`ssh://${REMOTE_ALIAS}${folder}`);

      // Its files change there: asked again, with what changed.
      writeFileSync(
        join(folder, '.mcp.json'),
        JSON.stringify({ mcpServers: { tool: { command: 'node', args: ['server.js'] } } }),
      );
      const again = await harness.backend.invoke('startConversation', { cwd: folder, host: REMOTE_ALIAS });
      expect(again).toMatchObject({ ok: false, error: { name: 'TrustNeeded', host: REMOTE_ALIAS } });
      const changed = await harness.invoke('folderTrust', { cwd: folder, host: REMOTE_ALIAS });
      expect(changed.changed?.added).toEqual([
        { file: '.mcp.json', kind: 'mcpServer', text: expect.stringContaining('node server.js') },
      ]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('lists a session made there by claude -p, finds a word of it, and keeps it readable while the host is away', async () => {
    harness.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Answered without Byre.' }] });
    // Made by the host's own CLI, as by a person at its terminal: Byre has no transcript of it.
    const { stdout } = await run('ssh', [
      '-F',
      sshConfig,
      '-o',
      'BatchMode=yes',
      REMOTE_ALIAS,
      '--',
      `cd ${remote.cwd} && ~/.local/bin/claude -p 'a question about zanzibar' --output-format json`,
    ]);
    const made = (JSON.parse(stdout) as { session_id: string }).session_id;
    // Picking the host in the new-conversation form brings the library's copy of its sessions up to date.
    await harness.invoke('remoteFolders', { host: REMOTE_ALIAS, prefix: '' });
    const listed = await harness.when(async () => {
      const { rows } = await harness.invoke('libraryList', {});
      return rows.find((row) => row.sessionId === made && row.cwd === realpathSync(remote.cwd));
    });
    expect(listed).toMatchObject({ host: REMOTE_ALIAS, title: 'a question about zanzibar', resumable: true });
    const hits = await harness.when(async () => {
      const { hits } = await harness.invoke('librarySearch', { query: 'zanzibar' });
      return hits.some((hit) => hit.sessionId === made && hit.messageUuid !== null) ? hits : undefined;
    });
    expect(hits.filter((hit) => hit.sessionId === made).length).toBeGreaterThan(0);

    // With the host gone, the conversation still reads from the library's copy.
    remote.sshd.dropConnections();
    try {
      const page = await harness.invoke('openSaved', { sessionId: made });
      expect(JSON.stringify(page.events)).toContain('Answered without Byre.');
      expect(page.row).toMatchObject({ host: REMOTE_ALIAS });
    } finally {
      await remote.sshd.restart();
    }
  });

  it('works with a host whose shell start-up files print (a greeting, a tool that says it is ready)', async () => {
    // bash reads ~/.bashrc for a command from sshd too: what it prints comes before every command's output.
    const bashrc = join(remote.home, '.bashrc');
    writeFileSync(
      bashrc,
      [
        'echo "Welcome to the host"',
        // A line a decoder could take for the CLI's, and one without its newline.
        `echo '{"type":"system","subtype":"init","session_id":"not-the-cli"}'`,
        'printf "conda: base"',
        'echo "env: ready" >&2',
      ].join('\n'),
    );
    try {
      const folders = await harness.invoke('remoteFolders', {
        host: REMOTE_ALIAS,
        prefix: `${dirname(remote.cwd)}/`,
      });
      expect(folders.folders).toEqual([join(dirname(remote.cwd), 'home'), join(dirname(remote.cwd), 'work')]);
      harness.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Heard past the greeting.' }] });
      const conversation = await harness.invoke('startConversation', { cwd: remote.cwd, host: REMOTE_ALIAS });
      const { conversationId } = conversation;
      await harness.invoke('send', { conversationId, text: 'are you there?' });
      await harness.when(() => replyText(conversation).includes('Heard past the greeting.'));
      // Nothing of the greeting is taken for a line of the CLI's.
      expect(
        harness
          .eventsOf(conversationId)
          .filter((event) => event.kind === 'warning' || event.kind === 'bad_line'),
      ).toEqual([]);
      await harness.invoke('closeConversation', { conversationId });
      // The library's copy of the session is the host's file as it is, byte for byte.
      const projects = join(remote.home, '.claude', 'projects', remote.cwd.replace(/[^a-zA-Z0-9]/g, '-'));
      const file = join(projects, `${conversation.sessionId}.jsonl`);
      await vi.waitFor(() => expect(existsSync(file)).toBe(true), { timeout: 20_000, interval: 100 });
      const listed = await harness.when(async () => {
        await harness.invoke('remoteFolders', { host: REMOTE_ALIAS, prefix: '' });
        const { rows } = await harness.invoke('libraryList', {});
        return rows.find((row) => row.sessionId === conversation.sessionId && row.messageCount >= 2);
      });
      expect(listed).toMatchObject({ host: REMOTE_ALIAS });
      const copy = join(
        harness.dataDir,
        'remote',
        REMOTE_ALIAS,
        'projects',
        basename(projects),
        basename(file),
      );
      await vi.waitFor(() => expect(readFileSync(copy).equals(readFileSync(file))).toBe(true), {
        timeout: 20_000,
        interval: 100,
      });
    } finally {
      rmSync(bashrc, { force: true });
    }
  });

  it('keeps Changes of a repository there, by git there: a turn’s Write and shell command listed, diffed and reverted on the host', async () => {
    const { fake } = harness.world;
    const repo = join(dirname(remote.cwd), 'repository');
    mkdirSync(repo);
    gitIn(repo, 'init', '--quiet');
    writeFileSync(join(repo, 'tracked.txt'), 'one\ntwo\n');
    gitIn(repo, 'add', 'tracked.txt');
    gitIn(repo, 'commit', '--quiet', '-m', 'first');
    const bash = "printf 'x\\n' > made-by-bash.txt && printf 'one\\n2\\n' > tracked.txt";
    const gitThere = logGitThere();
    fake.enqueue(
      {
        blocks: [
          {
            type: 'tool_use',
            name: 'Write',
            input: { file_path: join(repo, 'new.txt'), content: 'fresh\n' },
          },
        ],
      },
      { blocks: [{ type: 'tool_use', name: 'Bash', input: { command: bash, description: 'change files' } }] },
      { blocks: [{ type: 'text', text: 'Changed them there.' }] },
    );
    const { conversationId, sessionId } = await harness.invoke('startConversation', {
      cwd: repo,
      host: REMOTE_ALIAS,
    });
    await harness.invoke('send', { conversationId, text: 'change the files there' });
    await harness.when(() =>
      harness.eventsOf(conversationId).some((event) => event.kind === 'changes' && event.steps >= 1),
    );

    const view = await harness.invoke('changes', { conversationId, step: null, scope: 'conversation' });
    expect(view).toMatchObject({ state: { kind: 'on' }, inRepository: true, repositoryState: null });
    expect(view.files.map((file) => ({ path: file.path, status: file.status, steps: file.steps }))).toEqual([
      {
        path: 'made-by-bash.txt',
        status: 'added',
        steps: [{ step: 1, causes: [{ tool: 'Bash', command: bash }] }],
      },
      { path: 'new.txt', status: 'added', steps: [{ step: 1, causes: [{ tool: 'Write', command: null }] }] },
      {
        path: 'tracked.txt',
        status: 'modified',
        steps: [{ step: 1, causes: [{ tool: 'Bash', command: bash }] }],
      },
    ]);
    const diff = await harness.invoke('changesDiff', {
      conversationId,
      step: null,
      path: 'tracked.txt',
      scope: 'conversation',
    });
    expect(diff.kind === 'text' ? diff.hunks.flatMap((hunk) => hunk.lines) : diff).toEqual([
      ' one',
      '-two',
      '+2',
    ]);

    // Kept by git there: refs in the host's repository, the private index in the host's home, none here.
    expect(gitIn(repo, 'for-each-ref', '--format=%(refname)', 'refs/byre/').split('\n')).toContain(
      `refs/byre/${sessionId}/start`,
    );
    const record = JSON.parse(readFileSync(join(harness.dataDir, 'changes', `${sessionId}.json`), 'utf8'));
    expect(record).toMatchObject({ host: REMOTE_ALIAS, folder: realpathSync(repo) });
    expect(record.store).toBe(join(remote.home, '.local', 'state', 'byre', 'snapshots'));
    // The user's own index is as it was: nothing staged.
    expect(gitIn(repo, 'status', '--porcelain')).toBe(' M tracked.txt\n?? made-by-bash.txt\n?? new.txt\n');

    // Reverts write there.
    for (const path of ['made-by-bash.txt', 'tracked.txt']) {
      const target = { kind: 'file' as const, path, step: null };
      const preview = await harness.invoke('previewRevert', { conversationId, target });
      expect(preview.files).toEqual([
        { path, action: path === 'tracked.txt' ? 'restore' : 'delete', changedSince: false },
      ]);
      const reverted = await harness.invoke('revert', { conversationId, target, overwriteChanged: false });
      expect(reverted).toMatchObject({ kept: [], step: { kind: 'revert', paths: [path] } });
    }
    expect(existsSync(join(repo, 'made-by-bash.txt'))).toBe(false);
    expect(readFileSync(join(repo, 'tracked.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(readFileSync(join(repo, 'new.txt'), 'utf8')).toBe('fresh\n');
    // Each snapshot and the reverts were git's there.
    const ran = gitThere.calls();
    expect(ran).toMatch(/ add --all --ignore-errors -- \.$/m);
    expect(ran).toMatch(/ restore --source=[0-9a-f]+ --worktree /);
    await harness.invoke('closeConversation', { conversationId });
    gitThere.stop();
  });

  it('makes a worktree of a repository there, by git there: offered with its branches, set up, looked at, merged and removed there', async () => {
    const { fake } = harness.world;
    const top = realpathSync(mkdtempSync(join(dirname(remote.cwd), 'worktree-repository-')));
    writeFileSync(join(top, 'app.txt'), 'main\n');
    gitIn(top, 'init', '--quiet', '-b', 'main');
    gitIn(top, 'add', '-A');
    gitIn(top, 'commit', '--quiet', '-m', 'main');
    gitIn(top, 'branch', 'release');
    const statusBefore = gitIn(top, 'status', '--porcelain=v1', '--untracked-files=all');
    const gitThere = logGitThere();
    try {
      // The form's choices, from git there.
      expect(await harness.invoke('worktreeChoices', { cwd: top, host: REMOTE_ALIAS })).toMatchObject({
        available: true,
        repository: top,
        branches: ['main', 'release'],
        current: 'main',
      });
      // A setup command for the repository there, kept for it alone.
      const setup = 'echo "set up in $(pwd -P) as $HOME"';
      expect(
        await harness.invoke('setWorktreeSetup', { repository: top, host: REMOTE_ALIAS, command: setup }),
      ).toEqual({ repository: top, command: setup, host: REMOTE_ALIAS });
      expect((await harness.invoke('worktreeSetups', {})).setups).toContainEqual({
        repository: top,
        command: setup,
        host: REMOTE_ALIAS,
      });
      expect(await harness.invoke('worktreeChoices', { cwd: top, host: REMOTE_ALIAS })).toMatchObject({
        setupCommand: setup,
      });

      const worktreePath = join(top, '.claude', 'worktrees', 'fix-the-login-page');
      fake.enqueue(
        {
          blocks: [
            {
              type: 'tool_use',
              name: 'Write',
              input: { file_path: join(worktreePath, 'app.txt'), content: 'fixed\n' },
            },
          ],
        },
        { blocks: [{ type: 'text', text: 'Fixed there.' }] },
      );
      const snapshot = await harness.invoke('startConversation', {
        cwd: top,
        host: REMOTE_ALIAS,
        worktree: { base: 'release' },
        firstMessage: 'Fix the login page',
      });
      const { conversationId } = snapshot;
      expect(snapshot).toMatchObject({
        cwd: worktreePath,
        host: REMOTE_ALIAS,
        worktree: {
          repository: top,
          name: 'fix-the-login-page',
          branch: 'fix-the-login-page',
          base: 'release',
        },
      });
      await harness.when(() => replyText(snapshot).includes('Fixed there.'));
      // The setup ran there, in the worktree, before the first message.
      const runs = harness
        .eventsOf(conversationId)
        .flatMap((event) => (event.kind === 'setup' && event.run.status !== 'running' ? [event.run] : []));
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ status: 'passed' });
      expect(runs[0]?.output).toContain(`set up in ${worktreePath} as ${remote.home}`);
      expect(readFileSync(join(worktreePath, 'app.txt'), 'utf8')).toBe('fixed\n');
      expect(gitIn(worktreePath, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('fix-the-login-page');

      // How it stands, as git there counts it.
      await vi.waitFor(
        async () => {
          const { worktrees } = await harness.invoke('worktrees', {});
          expect(worktrees.find((worktree) => worktree.path === worktreePath)).toMatchObject({
            host: REMOTE_ALIAS,
            ahead: 0,
            behind: 0,
            filesChanged: 1,
            uncommitted: ['app.txt'],
            removed: false,
            problem: null,
          });
        },
        { timeout: 20_000, interval: 200 },
      );
      // Its Changes against its base.
      const against = await harness.invoke('changes', { conversationId, step: null, scope: 'base' });
      expect(against.files.map((file) => file.path)).toEqual(['app.txt']);

      // "Commit as" for the repository there, set from the conversation (its folder is the worktree).
      await harness.invoke('setCommitIdentity', {
        scope: 'folder',
        cwd: worktreePath,
        host: REMOTE_ALIAS,
        identity: { name: 'Dev There', email: 'dev@there.example' },
      });
      expect(await harness.invoke('commitIdentity', { cwd: worktreePath, host: REMOTE_ALIAS })).toMatchObject(
        { folder: { name: 'Dev There' } },
      );
      // Not this computer's folder of the same path.
      expect(await harness.invoke('commitIdentity', { cwd: top })).toMatchObject({ folder: null });
      // Merged into its base there, what was uncommitted committed first.
      const merged = await harness.invoke('mergeWorktree', {
        conversationId,
        squash: true,
        message: 'Fix the login page',
        commitUncommitted: true,
      });
      expect(merged).toMatchObject({ merged: true, base: 'release' });
      expect(gitIn(top, 'show', 'release:app.txt')).toBe('fixed\n');
      expect(gitIn(top, 'log', '-1', '--format=%an <%ae>', 'release').trim()).toBe(
        'Dev There <dev@there.example>',
      );
      // A pull request is not opened from here for it, and says what to do.
      const draft = await harness.invoke('worktreeDraft', { conversationId });
      expect(draft.pullRequest).toMatchObject({
        ready: false,
        reason: expect.stringMatching(/gh pr create/),
      });

      await harness.invoke('removeWorktree', { conversationId, deleteBranch: false });
      expect(existsSync(worktreePath)).toBe(false);
      expect(gitIn(top, 'branch', '--list', 'fix-the-login-page')).toContain('fix-the-login-page');
      const { worktrees } = await harness.invoke('worktrees', {});
      expect(worktrees.find((worktree) => worktree.path === worktreePath)).toMatchObject({ removed: true });

      // Resumed from the library, it is made again there from its branch, and carries on in it.
      await harness.when(async () => {
        const { rows } = await harness.invoke('libraryList', {});
        return rows.find(
          (row) =>
            row.sessionId === snapshot.sessionId && row.host === REMOTE_ALIAS && row.cwd === worktreePath,
        );
      });
      fake.enqueue({ blocks: [{ type: 'text', text: 'Back in the worktree.' }] });
      const resumed = await harness.invoke('resumeSaved', { sessionId: snapshot.sessionId });
      expect(resumed).toMatchObject({
        host: REMOTE_ALIAS,
        cwd: worktreePath,
        worktree: { name: 'fix-the-login-page', base: 'release' },
      });
      expect(gitIn(worktreePath, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('fix-the-login-page');
      await harness.invoke('send', { conversationId: resumed.conversationId, text: 'are you back?' });
      await harness.when(() => replyText(resumed).includes('Back in the worktree.'));
      await harness.invoke('closeConversation', { conversationId: resumed.conversationId });
      // All of it git's there; the main checkout as it was.
      const ran = gitThere.calls();
      expect(ran).toMatch(/ worktree add --quiet -b fix-the-login-page -- /);
      expect(ran).toMatch(/ merge-tree --write-tree /);
      expect(ran).toMatch(/ worktree remove --force /);
      expect(gitIn(top, 'status', '--porcelain=v1', '--untracked-files=all')).toBe(statusBefore);

      // The repository gone from the host, its setup command can still be removed.
      rmSync(top, { recursive: true, force: true });
      await harness.invoke('setWorktreeSetup', { repository: top, host: REMOTE_ALIAS, command: '' });
      expect((await harness.invoke('worktreeSetups', {})).setups).not.toContainEqual(
        expect.objectContaining({ repository: top }),
      );
    } finally {
      gitThere.stop();
    }
  });

  it('never carries this computer’s trust of a repository to a worktree on a host whose path is the same', async () => {
    const top = realpathSync(mkdtempSync(join(dirname(remote.cwd), 'trusted-here-')));
    mkdirSync(join(top, '.claude'));
    const hook = [{ hooks: [{ type: 'command', command: 'touch hooked.marker' }] }];
    writeFileSync(join(top, '.claude', 'settings.json'), JSON.stringify({ hooks: { SessionStart: hook } }));
    gitIn(top, 'init', '--quiet', '-b', 'main');
    gitIn(top, 'add', '-A');
    gitIn(top, 'commit', '--quiet', '-m', 'a hook');
    // Trusted on this computer.
    const here = await harness.backend.invoke('startConversation', { cwd: top });
    expect(here).toMatchObject({ ok: false, error: { name: 'TrustNeeded', folder: top } });
    const view = await harness.invoke('folderTrust', { cwd: top });
    await harness.invoke('decideTrust', { folder: top, digest: view.digest, trust: true });
    const trusted = await harness.invoke('startConversation', { cwd: top });
    await harness.invoke('closeConversation', { conversationId: trusted.conversationId });
    // On the host, a worktree of the repository there (the same path, another folder) is asked about.
    const there = await harness.backend.invoke('startConversation', {
      cwd: top,
      host: REMOTE_ALIAS,
      worktree: { base: 'main', name: 'asked-there' },
    });
    expect(there).toMatchObject({
      ok: false,
      error: {
        name: 'TrustNeeded',
        folder: join(top, '.claude', 'worktrees', 'asked-there'),
        host: REMOTE_ALIAS,
      },
    });
    expect(existsSync(join(top, '.claude', 'worktrees', 'asked-there', 'hooked.marker'))).toBe(false);
  });

  it('runs a Terminal conversation there: the interactive CLI in a terminal over ssh, followed by its hooks, ended on close', async () => {
    const folder = realpathSync(remote.cwd);
    seedInteractiveCli(remote.home, [folder], harness.world.env.ANTHROPIC_API_KEY ?? '');
    let screen = '';
    const stop = harness.backend.on((channel, payload) => {
      if (channel === 'terminalOutput') screen += (payload as { data: string }).data;
    });
    onTestFinished(stop);
    const plain = () =>
      screen
        // eslint-disable-next-line no-control-regex
        .replace(/\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-_]/g, ' ')
        .replace(/\s+/g, ' ');
    const hookFolders = () => readdirSync(tmpdir()).filter((name) => name.startsWith('byre-h-'));
    const foldersBefore = hookFolders();
    harness.world.fake.enqueue(
      {
        blocks: [
          {
            type: 'tool_use',
            name: 'Write',
            input: { file_path: join(folder, 'terminal-there.txt'), content: 'typed in a terminal there\n' },
          },
        ],
      },
      { blocks: [{ type: 'text', text: 'Written on the host.' }] },
    );
    const conversation = await harness.invoke('startConversation', {
      cwd: remote.cwd,
      host: REMOTE_ALIAS,
      lane: 'terminal',
      permissionMode: 'acceptEdits',
      size: { cols: 100, rows: 30 },
    });
    expect(conversation).toMatchObject({ lane: 'terminal', host: REMOTE_ALIAS, cwd: folder });
    // The CLI's prompt is up (its status line says the mode it was given).
    await harness.when(() => /accept edits on/.test(plain()));
    const typed = async (data: string) =>
      harness.invoke('terminalInput', { conversationId: conversation.conversationId, data });
    await typed('write the file there');
    await typed('\r');
    const request = await harness.world.fake.waitForRequest((r) =>
      JSON.stringify(r.body).includes('write the file there'),
    );
    // The interactive CLI on the host, billed as the terminal.
    expect(String(request.headers['user-agent'])).toMatch(/\(external, cli\)/);
    await harness.when(() => plain().includes('Written on the host.'));
    expect(readFileSync(join(folder, 'terminal-there.txt'), 'utf8')).toBe('typed in a terminal there\n');
    // Its hooks, run there by the host's node, reached Byre through the forwarded socket: the turn began and
    // ended, and its snapshot, taken there, lists the file.
    const states = () =>
      harness
        .eventsOf(conversation.conversationId)
        .flatMap((event) => (event.kind === 'activity' ? [event.state] : []));
    await harness.when(() => states().includes('done'));
    expect(states()).toContain('working');
    const changes = await harness.when(async () => {
      const view = await harness.invoke('changes', {
        conversationId: conversation.conversationId,
        step: null,
        scope: 'conversation',
      });
      return view.files.some((file) => file.path === 'terminal-there.txt' && file.steps.length > 0) && view;
    });
    expect(changes.steps.at(-1)).toMatchObject({ kind: 'turn', prompt: 'write the file there' });

    // An image pasted into it is written into its private folder there, for the CLI there to take by its
    // path (that the CLI takes a pasted path is shown in e2e/terminal.e2e.ts); what is no image is refused.
    const dot = Buffer.from(ONE_PIXEL_PNG, 'base64');
    const image = await harness.invoke('terminalImage', {
      conversationId: conversation.conversationId,
      name: 'dot.png',
      data: ONE_PIXEL_PNG,
    });
    if (!image.ok) throw new Error(image.message);
    expect(image.path).toMatch(/^\/tmp\/byre-h-[^/]+\/image-1\.png$/);
    expect(readFileSync(image.path)).toEqual(dot);
    expect(statSync(image.path).mode & 0o777).toBe(0o600);
    expect(
      await harness.invoke('terminalImage', {
        conversationId: conversation.conversationId,
        name: 'notes.txt',
        data: Buffer.from('just text').toString('base64'),
      }),
    ).toEqual({ ok: false, message: 'This is not a PNG, JPEG, GIF or WebP image.' });

    expect(processesWithHome(remote.home).length).toBeGreaterThan(0);
    await harness.invoke('closeConversation', { conversationId: conversation.conversationId });
    // Nothing of it is left running there, and the hooks' folders (here and there) are gone.
    // Nothing announces these (no event comes once it has ended): looked at again every 100 ms.
    const gone = { timeout: 60_000, interval: 100 };
    await vi.waitFor(() => expect(processesWithHome(remote.home)).toEqual([]), gone);
    await vi.waitFor(
      () => expect(hookFolders().filter((name) => !foldersBefore.includes(name))).toEqual([]),
      gone,
    );
  });

  it('a connection lost mid-turn is said so, leaves nothing running there, and Resume carries on with the history once the host is back', async () => {
    const { fake } = harness.world;
    fake.enqueue(
      { blocks: [{ type: 'text', text: 'The first answer.' }] },
      // The second turn runs a command on the host when the connection goes.
      {
        blocks: [
          { type: 'tool_use', name: 'Bash', input: { command: 'tail -f /dev/null', description: 'wait' } },
        ],
      },
    );
    const conversation = await harness.invoke('startConversation', { cwd: remote.cwd, host: REMOTE_ALIAS });
    const { conversationId } = conversation;
    await harness.invoke('send', { conversationId, text: 'remember the word heron' });
    await harness.when(() => replyText(conversation).includes('The first answer.'));
    await harness.invoke('send', { conversationId, text: 'now wait' });
    // A process there, which no event announces: looked at again every 100 ms.
    await vi.waitFor(() => expect(commandLinesWithHome(remote.home)).toContain('tail -f /dev/null'), {
      timeout: 60_000,
      interval: 100,
    });

    remote.sshd.dropConnections();
    const exit = await harness.when(() =>
      harness.eventsOf(conversationId).find((event) => event.kind === 'exit' && event.error),
    );
    expect(exit).toMatchObject({
      error: { name: 'RemoteProblem', message: expect.stringMatching(/^Connection lost: .*byre-remote/) },
    });
    await vi.waitFor(() => expect(processesWithHome(remote.home)).toEqual([]), {
      timeout: 20_000,
      interval: 200,
    });

    await remote.sshd.restart();
    fake.enqueue({ blocks: [{ type: 'text', text: 'Heron, as you said.' }] });
    const resumed = await harness.invoke('resume', { conversationId });
    expect(resumed).toMatchObject({ host: REMOTE_ALIAS, sessionId: conversation.sessionId });
    await harness.invoke('send', { conversationId, text: 'which word?' });
    await harness.when(() => replyText(conversation).includes('Heron, as you said.'));
    // The model got the history from before the drop, which the session file on the host kept.
    expect(JSON.stringify(fake.messageRequests().at(-1))).toContain('remember the word heron');
    await harness.invoke('closeConversation', { conversationId });
  });

  it('its ssh killed mid-turn (as the OS or a dead master does): "Connection lost" at once, and Resume carries on there', async () => {
    const { fake } = harness.world;
    // A command that would run for good: only the end of the connection ends the turn.
    fake.enqueue({
      blocks: [
        { type: 'tool_use', name: 'Bash', input: { command: 'tail -f /dev/null', description: 'wait' } },
      ],
    });
    const conversation = await harness.invoke('startConversation', { cwd: remote.cwd, host: REMOTE_ALIAS });
    const { conversationId } = conversation;
    await harness.invoke('send', { conversationId, text: 'wait' });
    await vi.waitFor(() => expect(commandLinesWithHome(remote.home)).toContain('tail -f /dev/null'), {
      timeout: 60_000,
      interval: 100,
    });
    // The conversation's own ssh here: the one whose command line names the folder there.
    const ssh = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
          return (
            argv[0]?.split('/').at(-1) === 'ssh' &&
            argv.some((word) => word.includes(remote.cwd)) &&
            !argv.includes('-O')
          );
        } catch {
          return false;
        }
      });
    expect(ssh).toHaveLength(1);
    process.kill(Number(ssh[0]), 'SIGKILL');
    const exit = await harness.when(() =>
      harness.eventsOf(conversationId).find((event) => event.kind === 'exit' && event.error),
    );
    expect(exit).toMatchObject({
      error: { name: 'RemoteProblem', message: expect.stringMatching(/^Connection lost: .*byre-remote/) },
    });
    // Its turn is over, not shown running.
    expect(harness.eventsOf(conversationId).filter((event) => event.kind === 'exit')).toHaveLength(1);
    // Resume carries on there, and the process the master kept running there ends first: one CLI a session.
    fake.enqueue({ blocks: [{ type: 'text', text: 'Back again.' }] });
    await harness.invoke('resume', { conversationId });
    await harness.invoke('send', { conversationId, text: 'still there?' });
    await harness.when(() => replyText(conversation).includes('Back again.'));
    await vi.waitFor(() => expect(commandLinesWithHome(remote.home)).not.toContain('tail -f /dev/null'), {
      timeout: 30_000,
      interval: 200,
    });
    await harness.invoke('closeConversation', { conversationId });
  });

  it('says so when the folder is not there on the host, and starts nothing', async () => {
    const result = await harness.backend.invoke('startConversation', {
      cwd: join(remote.cwd, 'no-such-folder'),
      host: REMOTE_ALIAS,
    });
    expect(result).toMatchObject({
      ok: false,
      error: {
        name: 'RemoteProblem',
        message: expect.stringMatching(/no folder .*no-such-folder on byre-remote/),
      },
    });
  });

  it('refuses a host typed under Other… that ssh could read as an option', async () => {
    const result = await harness.backend.invoke('startConversation', {
      cwd: remote.cwd,
      host: '-oProxyCommand=x',
    });
    expect(result).toMatchObject({
      ok: false,
      error: { name: 'RemoteProblem', message: expect.stringMatching(/is not a host/) },
    });
  });

  // Last: Byre quits.
  it('quitting Byre ends the CLI on the host and closes the connection to it', async () => {
    const conversation = await harness.invoke('startConversation', { cwd: remote.cwd, host: REMOTE_ALIAS });
    expect(processesWithHome(remote.home).length).toBeGreaterThan(0);
    const ours = masters().filter((pid) => !othersBefore.includes(pid));
    expect(ours.length).toBeGreaterThan(0);
    await harness.backend.dispose();
    expect(
      harness.eventsOf(conversation.conversationId).some((event) => event.kind === 'exit' && event.error),
    ).toBe(false);
    await vi.waitFor(() => expect(processesWithHome(remote.home)).toEqual([]), {
      timeout: 20_000,
      interval: 200,
    });
    // `ssh -O exit` answers before the master is gone.
    await vi.waitFor(() => expect(masters().filter((pid) => ours.includes(pid))).toEqual([]), {
      timeout: 10_000,
      interval: 100,
    });
  });
});
