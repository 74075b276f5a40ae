import { copyFileSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesWithHome } from '../../e2e/fixtures/cli-env';
import type { ConversationSnapshot } from '../../shared/ipc';
import { createRemoteWorld, REMOTE_ALIAS, type RemoteWorld } from '../test-support/sshd';
import { openBackend, type BackendHarness } from '../test-support/invoke';

/**
 * Conversations on another host through the backend the UI talks to: the hosts of the one ssh config file,
 * and a conversation started on one, over the test's own sshd on 127.0.0.1, with the real CLI on the
 * "remote" (this machine under another HOME) against the fake model.
 */

let harness: BackendHarness;
let remote: RemoteWorld;
let sshConfig: string;

beforeAll(async () => {
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

const replyText = (conversation: ConversationSnapshot) =>
  harness
    .eventsOf(conversation.conversationId)
    .flatMap((event) =>
      event.kind === 'message' && event.message.type === 'assistant'
        ? event.message.message.content.flatMap((block) => (block.type === 'text' ? [block.text] : []))
        : [],
    );

describe('conversations on another host', () => {
  it('lists the hosts of the config file', async () => {
    expect(await harness.invoke('remoteHosts', {})).toEqual({
      configFile: sshConfig,
      hosts: [REMOTE_ALIAS],
    });
  });

  it('starts one in a folder there, says which host it is on, and it answers', async () => {
    harness.world.fake.enqueue({ blocks: [{ type: 'text', text: 'Hello from the host.' }] });
    const conversation = await harness.invoke('startConversation', { cwd: remote.cwd, host: REMOTE_ALIAS });
    expect(conversation).toMatchObject({ host: REMOTE_ALIAS, cwd: realpathSync(remote.cwd) });
    // The folder's own settings are not read from here, so they are never loaded there.
    expect(conversation.folderSettingsOff).toBe(true);
    expect(processesWithHome(remote.home).length).toBeGreaterThan(0);
    await harness.invoke('send', { conversationId: conversation.conversationId, text: 'hello?' });
    await harness.when(() => replyText(conversation).includes('Hello from the host.'));
    await harness.invoke('closeConversation', { conversationId: conversation.conversationId });
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
});
