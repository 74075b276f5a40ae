import { DEFAULT_TERMINAL_SIZE } from '../../../shared/ipc';
import { exportJsonl, exportMarkdown, recentMarkdown } from '../../library/export';
import { readBranch } from '../../library/read-branch';
import { changesFolders } from '../../changes/record';
import { forgetChanges, inBackground } from '../../changes/retention';
import { readLastPage, readPageBefore } from '../../library/read-session';
import { CliCopyGone, NoSuchSession, NotSupported } from '../errors';
import { existingFolder } from '../open-conversations';
import { byReference, type HandlersOf, type Parts } from '../parts';

/**
 * The library of past conversations: its list, search and families, a saved conversation's pages, carrying
 * one on (resumed, or continued in a new conversation), and the user's names, hiding and exports.
 */
export function libraryHandlers(
  parts: Parts,
): HandlersOf<
  | 'libraryList'
  | 'libraryStatus'
  | 'librarySearch'
  | 'libraryFamily'
  | 'openSaved'
  | 'openSavedBranch'
  | 'openSavedBefore'
  | 'resumeSaved'
  | 'continueSaved'
  | 'renameSaved'
  | 'hideSaved'
  | 'exportSaved'
> {
  const { library, open, images, options } = parts;
  return {
    libraryList: async ({ folder, limit }) => ({
      rows: await library.list({ folder: folder ?? null, ...(limit ? { limit } : {}) }),
    }),
    libraryStatus: async () => library.status(),
    librarySearch: async ({ query, folder, part, searcher, seq }) => ({
      hits: await library.search({
        query,
        folder: folder ?? null,
        ...(part ? { part } : {}),
        ...(searcher !== undefined && seq !== undefined ? { searcher, seq } : {}),
      }),
    }),
    libraryFamily: async ({ sessionId }) => library.family(sessionId),
    openSaved: async ({ sessionId }) => {
      const saved = await open.saved(sessionId);
      // Any branch of a family opens, though the list shows each family once.
      const row = await library.row(sessionId);
      if (!row) throw new NoSuchSession('That conversation is no longer in the library.');
      return { row, ...byReference(images, await readLastPage(saved)) };
    },
    openSavedBranch: async ({ sessionId, leafUuid }) => {
      const saved = await open.saved(sessionId);
      const row = await library.row(sessionId);
      if (!row) throw new NoSuchSession('That conversation is no longer in the library.');
      const page = saved.cliFile === null ? null : await readBranch(saved.cliFile, leafUuid);
      if (!page) throw new CliCopyGone('branches');
      return { row, ...byReference(images, page) };
    },
    openSavedBefore: async ({ sessionId, before }) =>
      byReference(images, await readPageBefore(await open.saved(sessionId), before)),
    resumeSaved: async ({ sessionId, lane, size }) => {
      // One open already (in either lane) is the one to show.
      const live = open.withSession(sessionId);
      if (live) return live.snapshot();
      const resumed = await open.resume(
        sessionId,
        lane ?? open.laneOf(sessionId, await open.saved(sessionId)),
        size ?? DEFAULT_TERMINAL_SIZE,
      );
      return resumed.snapshot();
    },
    continueSaved: async ({ sessionId }) => {
      const saved = await open.saved(sessionId);
      if (!saved.cliFile && saved.transcripts.length === 0) {
        throw new NoSuchSession('Nothing of this conversation is left on disk to carry on from.');
      }
      const meta = { title: saved.title, sessionId, cwd: saved.cwd };
      const { markdown } = await recentMarkdown(saved, meta, MAX_CONTINUATION_CHARS);
      // A conversation Byre ran on another host goes on there, in its folder on that host.
      const conversation = await open.start({
        lane: 'stream',
        host: saved.host && saved.cwd ? saved.host : null,
        cwd: saved.host && saved.cwd ? saved.cwd : existingFolder(saved.cwd),
        launch: {},
      });
      conversation.send(continuationPrompt(saved.title, markdown));
      const continued = conversation.snapshot();
      // Listed under the old title rather than the boilerplate of its first message.
      await library.rename(continued.sessionId, `${saved.title} (continued)`).catch(() => undefined);
      return continued;
    },
    renameSaved: async ({ sessionId, title }) => {
      await library.rename(sessionId, title);
      return {};
    },
    hideSaved: async ({ sessionId }) => {
      await library.hide(sessionId);
      // Open in a tab, it still uses them: retention takes them later.
      if (!open.withSession(sessionId)) {
        inBackground(
          'removing its snapshots',
          forgetChanges(sessionId, {
            ...changesFolders(options.dataDir),
            machineFor: (host) => parts.remote.machine(host),
          }),
        );
      }
      return {};
    },
    exportSaved: async ({ sessionId, format }) => {
      const deliver = options.deliverExport;
      if (!deliver) throw new NotSupported('This host cannot export files.');
      const saved = await open.saved(sessionId);
      const meta = { title: saved.title, sessionId, cwd: saved.cwd };
      return deliver(
        format === 'markdown' ? await exportMarkdown(saved, meta) : await exportJsonl(saved, meta),
      );
    },
  };
}

/** The most of an old conversation that goes into a new one's first message (the end is kept). */
const MAX_CONTINUATION_CHARS = 200_000;

/** The first message of a conversation that carries on from one the CLI can no longer resume. */
export function continuationPrompt(title: string, transcript: string): string {
  const kept =
    transcript.length > MAX_CONTINUATION_CHARS
      ? `[… the start is left out …]\n${transcript.slice(-MAX_CONTINUATION_CHARS)}`
      : transcript;
  return [
    `This conversation continues an earlier one, "${title}", which can no longer be resumed.`,
    'Its transcript follows. Read it for context, say in one sentence where it left off, and wait for my next message.',
    '',
    '<earlier-conversation>',
    kept,
    '</earlier-conversation>',
  ].join('\n');
}
