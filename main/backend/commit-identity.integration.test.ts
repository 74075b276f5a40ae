import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScriptedReply } from '../../e2e/fake-model/server';
import type { ConversationSnapshot } from '../../shared/ipc';
import { openBackend, type BackendHarness } from '../test-support/invoke';

/**
 * "Commit as" through the backend the UI talks to, against the real CLI and the fake model: a commit Claude
 * makes with Bash carries the identity from Byre's settings (the folder's own over the one for all
 * folders), with no co-author trailer.
 */

let harness: BackendHarness | undefined;
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

async function open(settings: Record<string, unknown> = {}): Promise<BackendHarness> {
  harness = await openBackend({ dontAsk: true, settings });
  return harness;
}

const bash = (command: string): ScriptedReply => ({
  blocks: [{ type: 'tool_use', name: 'Bash', input: { command, description: 'commit' } }],
});
const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });

const resultCount = (h: BackendHarness, conversation: ConversationSnapshot) =>
  h
    .eventsOf(conversation.conversationId)
    .filter((event) => event.kind === 'message' && event.message.type === 'result').length;

/** Claude commits in a fresh repository in the conversation's folder; what `git log` says of it. */
async function commitByClaude(h: BackendHarness): Promise<{ log: string; snapshot: ConversationSnapshot }> {
  h.world.fake.enqueue(
    bash('git init -q . && echo hi > file.txt && git add file.txt && git commit -q -m "Add file"'),
    say('Committed.'),
  );
  const snapshot = await h.invoke('startConversation', { cwd: h.world.cwd });
  await h.invoke('send', { conversationId: snapshot.conversationId, text: 'commit it' });
  await h.when(() => resultCount(h, snapshot) === 1);
  const log = execFileSync('git', ['log', '--format=%an <%ae>|%cn <%ce>|%b'], {
    cwd: h.world.cwd,
    encoding: 'utf8',
    // Only what the repository itself holds, not this machine's git configuration.
    env: { ...process.env, HOME: h.world.home, GIT_CONFIG_NOSYSTEM: '1' },
  });
  return { log: log.trim(), snapshot };
}

describe('"Commit as"', () => {
  it('a commit Claude makes carries the configured identity as author and committer, with no trailer', async () => {
    const h = await open({ commitAs: { name: 'Byre Tester', email: 'tester@example.com' } });
    const { log, snapshot } = await commitByClaude(h);
    expect(log).toBe('Byre Tester <tester@example.com>|Byre Tester <tester@example.com>|');
    expect(snapshot.commitIdentity).toEqual({ name: 'Byre Tester', email: 'tester@example.com' });
  });

  it("the folder's own identity wins over the one for all folders", async () => {
    const h = await open({ commitAs: { name: 'Everywhere', email: 'all@example.com' } });
    await h.invoke('setCommitIdentity', {
      scope: 'folder',
      cwd: h.world.cwd,
      identity: { name: 'Just Here', email: 'here@example.com' },
    });
    expect(await h.invoke('commitIdentity', { cwd: h.world.cwd })).toEqual({
      global: { name: 'Everywhere', email: 'all@example.com' },
      folder: { name: 'Just Here', email: 'here@example.com' },
    });
    const { log } = await commitByClaude(h);
    expect(log).toBe('Just Here <here@example.com>|Just Here <here@example.com>|');
  });

  it('refuses an invalid email with the reason, and keeps what was set', async () => {
    const h = await open({ commitAs: { name: 'Byre Tester', email: 'tester@example.com' } });
    const refused = await h.backend.invoke('setCommitIdentity', {
      scope: 'global',
      cwd: h.world.cwd,
      identity: { name: 'Someone', email: 'not-an-email' },
    });
    expect(refused).toMatchObject({
      ok: false,
      error: { name: 'InvalidRequest', message: expect.stringContaining('Enter an email address') },
    });
    expect((await h.invoke('commitIdentity', { cwd: h.world.cwd })).global).toEqual({
      name: 'Byre Tester',
      email: 'tester@example.com',
    });
  });

  it("sets nothing when none is configured, leaving it to git's own setting", async () => {
    const h = await open();
    h.world.fake.enqueue(
      bash('env | grep -E "^GIT_(AUTHOR|COMMITTER)_" > git-env.txt; true'),
      say('Looked.'),
    );
    const snapshot = await h.invoke('startConversation', { cwd: h.world.cwd });
    await h.invoke('send', { conversationId: snapshot.conversationId, text: 'look' });
    await h.when(() => resultCount(h, snapshot) === 1);
    expect(readFileSync(join(h.world.cwd, 'git-env.txt'), 'utf8')).toBe('');
    expect(snapshot.commitIdentity).toBeNull();
  });
});
