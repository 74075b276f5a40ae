import { basename } from 'node:path';
import { IMAGE_LIMITS, apiMaxSideFor, maxLongSideFor, refusalMessage } from '../../../shared/images';
import { ImageRefused, prepareImage } from '../../intake/images';
import { readProtocolLines } from '../../intake/protocol-lines';
import { byReference, type HandlersOf, type Parts } from '../parts';
import { NotSupported } from '../errors';
import { ImageNotTaken } from '../../conversation/terminal-conversation';
import { DEFAULT_TERMINAL_SIZE } from '../../../shared/ipc';

/**
 * The open conversations: starting one, what is sent to it and asked of its CLI, its drafts and pages, the
 * @-file list and the protocol lines of its folder and runs, and closing it.
 */
export function conversationHandlers(
  parts: Parts,
  /** Sends what is on its way first (to no tab yet), so no event is both in a window and after it. */
  flushEvents: () => void,
): HandlersOf<
  | 'startConversation'
  | 'setPermissionMode'
  | 'contextUsage'
  | 'mcpStatus'
  | 'mcpToggle'
  | 'mcpReconnect'
  | 'stopTask'
  | 'answerPermission'
  | 'answerQuestions'
  | 'answerPlan'
  | 'answerElicitation'
  | 'send'
  | 'prepareImage'
  | 'setDoneWhen'
  | 'setDraft'
  | 'interrupt'
  | 'cancelQueued'
  | 'setModel'
  | 'resume'
  | 'listConversations'
  | 'conversationBefore'
  | 'findFiles'
  | 'protocolLines'
  | 'closeConversation'
  | 'switchLane'
  | 'terminalInput'
  | 'terminalDrawn'
  | 'terminalResize'
  | 'terminalScreen'
  | 'terminalImage'
> {
  const { open, settings, images, library, files, tabs } = parts;
  return {
    startConversation: async ({
      cwd,
      model,
      permissionMode,
      worktree,
      firstMessage,
      host,
      resume,
      lane,
      size,
    }) => {
      const launch = {
        model: model ?? settings.values.defaultModel ?? undefined,
        ...(permissionMode ? { permissionMode } : {}),
        ...(resume ? { resume } : {}),
      };
      // A saved conversation here is resumed from the library, where its history is; one on a host can be
      // picked from the host's list of its sessions.
      if (resume && !host)
        throw new NotSupported('A saved conversation on this computer is resumed from the library.');
      const start = {
        // A saved one goes on in the lane it last ran in (a kept tab on a host, after a restart). A host's
        // login is the host's, which this computer cannot tell: a new conversation there is Stream unless
        // the Terminal lane is asked for.
        lane: lane ?? (resume ? open.lastLane(resume) : null) ?? (host ? 'stream' : open.defaultLane()),
        host: host ?? null,
        cwd,
        launch,
        ...(size ? { size } : {}),
        ...(firstMessage ? { firstMessage } : {}),
      };
      const conversation = worktree ? await open.startInWorktree(start, worktree) : await open.start(start);
      return conversation.snapshot();
    },
    setPermissionMode: async ({ conversationId, mode }) => ({
      mode: await open.get(conversationId).setPermissionMode(mode),
    }),
    contextUsage: async ({ conversationId }) => open.get(conversationId).contextUsage(),
    mcpStatus: async ({ conversationId }) => open.get(conversationId).mcpStatus(),
    mcpToggle: async ({ conversationId, serverName, enabled }) => {
      await open.get(conversationId).mcpToggle(serverName, enabled);
      return {};
    },
    mcpReconnect: async ({ conversationId, serverName }) => {
      await open.get(conversationId).mcpReconnect(serverName);
      return {};
    },
    stopTask: async ({ conversationId, taskId }) => {
      await open.get(conversationId).stopTask(taskId);
      return {};
    },
    answerPermission: async ({ conversationId, requestId, answer }) => ({
      answered: open.get(conversationId).answerPermission(requestId, answer),
    }),
    answerQuestions: async ({ conversationId, requestId, answer }) => ({
      answered: open.get(conversationId).answerQuestions(requestId, answer),
    }),
    answerPlan: async ({ conversationId, requestId, answer }) => ({
      answered: await open.get(conversationId).answerPlan(requestId, answer),
    }),
    answerElicitation: async ({ conversationId, requestId, answer }) => ({
      answered: open.get(conversationId).answerElicitation(requestId, answer),
    }),
    send: async ({ conversationId, text, images: sent, uuid }) => {
      const conversation = open.get(conversationId);
      const checked = await open.outgoingImages(sent);
      return { uuid: conversation.send(text, checked, uuid) };
    },
    prepareImage: async ({ name, data, imagesInTurn }) => {
      if (imagesInTurn > IMAGE_LIMITS.maxImagesPerTurn) {
        return { ok: false, reason: 'too_many', message: refusalMessage({ name, reason: 'too_many' }) };
      }
      try {
        const maxLongSide = maxLongSideFor(imagesInTurn, settings.imageMaxLongSide);
        const apiMaxSide = apiMaxSideFor(imagesInTurn);
        const image = await prepareImage(name, Buffer.from(data, 'base64'), { maxLongSide, apiMaxSide });
        return { ok: true, image, ref: images.keep(image) ?? image.data };
      } catch (error) {
        if (!(error instanceof ImageRefused)) throw error;
        return { ok: false, reason: error.refusal.reason, message: error.message };
      }
    },
    setDoneWhen: async ({ conversationId, command, folderDefault }) => {
      const conversation = open.any(conversationId);
      const { host, cwd } = conversation.snapshot();
      conversation.doneWhen.set(command);
      // A worktree's default is its repository's, as its conversations start with it.
      const folder = parts.worktrees.at(cwd, host ?? null)?.repository ?? cwd;
      if (folderDefault) settings.setDoneWhenFor(folder, command, host ?? undefined);
      return { command: conversation.doneWhen.current };
    },
    setDraft: async ({ conversationId, draft }) => {
      // Images only by what main gave for them: a draft never carries megabytes on each keystroke.
      open.get(conversationId).draft = {
        text: draft.text,
        images: draft.images.flatMap((image) => {
          const data = images.keep(image);
          return data ? [{ ...image, data }] : [];
        }),
      };
      tabs.changed();
      return {};
    },
    interrupt: async ({ conversationId }) => {
      await open.get(conversationId).interrupt();
      return {};
    },
    cancelQueued: async ({ conversationId, uuid }) => ({
      cancelled: await open.get(conversationId).cancelQueued(uuid),
    }),
    setModel: async ({ conversationId, model }) => ({
      model: await open.get(conversationId).setModel(model),
    }),
    resume: async ({ conversationId }) => open.get(conversationId).resume(),
    listConversations: async () => {
      flushEvents();
      return {
        conversations: open.all().map((conversation) => ({
          snapshot: conversation.snapshot(),
          ...byReference(images, conversation.history()),
          draft: conversation.draft,
          savedBefore: conversation.savedBefore,
        })),
      };
    },
    conversationBefore: async ({ conversationId, before }) =>
      byReference(images, open.any(conversationId).historyBefore(before)),
    findFiles: async ({ conversationId, query, limit }) => {
      const { cwd, host } = open.any(conversationId).snapshot();
      // The folder is on the host: this computer's files of the same path are not its.
      if (host) return { matches: [], total: 0, truncated: false };
      return files.find(cwd, query, limit);
    },
    protocolLines: async ({ target, ...request }) => {
      let transcripts: string[];
      if ('conversationId' in target) {
        const conversation = open.get(target.conversationId);
        // Earlier runs of a conversation resumed from the library are in transcripts the library knows.
        const earlier = (await library.files(conversation.snapshot().sessionId))?.transcripts ?? [];
        transcripts = [...new Set([...earlier, ...conversation.transcripts])];
      } else {
        transcripts = (await library.files(target.sessionId))?.transcripts ?? [];
      }
      // Named by the time each run started: in that order, oldest first.
      transcripts.sort((a, b) => basename(a).localeCompare(basename(b)));
      return readProtocolLines(transcripts, request);
    },
    closeConversation: async ({ conversationId }) => {
      await open.close(conversationId);
      return {};
    },
    switchLane: async ({ conversationId, lane, size }) => {
      const switched = await open.switchLane(conversationId, lane, size ?? DEFAULT_TERMINAL_SIZE);
      return { snapshot: switched.snapshot(), savedBefore: switched.savedBefore };
    },
    terminalInput: async ({ conversationId, data }) => {
      open.terminal(conversationId).input(data);
      return {};
    },
    terminalDrawn: async ({ conversationId, seq }) => {
      open.terminal(conversationId).drawn(seq);
      return {};
    },
    terminalResize: async ({ conversationId, cols, rows }) => {
      open.terminal(conversationId).resize({ cols, rows });
      return {};
    },
    terminalScreen: async ({ conversationId }) => open.terminal(conversationId).screenNow(),
    terminalImage: async ({ conversationId, data }) => {
      try {
        return { ok: true, path: await open.terminal(conversationId).keepImage(Buffer.from(data, 'base64')) };
      } catch (error) {
        if (!(error instanceof ImageNotTaken)) throw error;
        return { ok: false, message: error.message };
      }
    },
  };
}
