import type { FileRewind } from '../../../shared/ipc';
import { cliPart } from '../../changes/rewind';
import { DiffWorker } from '../../intake/rewind-diff';
import { fileChanges } from '../../intake/rewind-preview';
import { claudeConfigDir } from '../../library/library';
import type { HandlersOf, Parts } from '../parts';

/** Branches and rewind: forking a conversation at a message, and putting files back as they were there. */
export function branchHandlers(parts: Parts): HandlersOf<'forkConversation' | 'rewindFiles'> {
  const { open, options } = parts;

  /** Per file figures for the Rewind dialog, counted in a worker of their own; none if it fails. */
  const changesFor = async (
    sessionId: string,
    uuid: string,
    preview: FileRewind,
  ): Promise<FileRewind['fileChanges']> => {
    const configDir = claudeConfigDir(options.env);
    const diffs = new DiffWorker(options.rewindDiffWorker);
    try {
      return await fileChanges(configDir, sessionId, uuid, preview, diffs.count);
    } catch (error) {
      console.error('Byre: the rewind preview failed:', error);
      return null;
    } finally {
      void diffs.close();
    }
  };

  return {
    forkConversation: async ({ from, at, message }) => open.fork(from, at, message),
    rewindFiles: async ({ target, userMessageUuid, dryRun }) => {
      let sessionId: string;
      let result: FileRewind;
      if ('conversationId' in target) {
        const conversation = open.get(target.conversationId);
        result = await conversation.rewindFiles(userMessageUuid, dryRun);
        const snapshot = conversation.snapshot();
        sessionId = snapshot.sessionId;
        // The CLI restores the files on the host; the per-file figures would be read from this computer.
        if (snapshot.host) return { ...result, fileChanges: null };
      } else {
        sessionId = target.sessionId;
        const running = await open.withSessionOrResuming(sessionId);
        result = running
          ? await running.rewindFiles(userMessageUuid, dryRun)
          : await open.inTemporaryProcess(sessionId, (conversation) =>
              conversation.rewindFiles(userMessageUuid, dryRun),
            );
        // As above: a session on a host has its files there.
        const host = running ? running.snapshot().host : (await open.saved(sessionId)).host;
        if (host) return { ...result, fileChanges: null };
      }
      if (!dryRun || !result.canRewind) return { ...result, fileChanges: null };
      // The command files' counts come from the snapshots; the CLI's files' are worked out here.
      const byCommand = (result.fileChanges ?? []).filter((change) => change.byCommand);
      const cli = cliPart(result);
      const byCli = cli.filesChanged.length === 0 ? [] : await changesFor(sessionId, userMessageUuid, cli);
      return { ...result, fileChanges: byCli && [...byCli, ...byCommand] };
    },
  };
}
