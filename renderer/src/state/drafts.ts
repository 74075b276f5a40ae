/**
 * The drafts slice: the message being written in each tab (text, images, refusals), kept in the store so
 * that switching tabs loses nothing typed, and told to main so that a reload finds it. Images are checked
 * by main (prepareImage) as they are attached.
 */
import { IMAGE_LIMITS, MAX_IMAGE_FILE_BYTES, refusalMessage } from '../../../shared/images';
import type { PreparedImage, SavedDraft } from '../../../shared/ipc';
import { call } from '../host/api';
import { liveConversationId } from './selectors';
import type { Attachment, Draft, DraftsSlice, StoreGet, StoreSet } from './types';

const EMPTY_DRAFT: Draft = { text: '', attachments: [], refusals: [] };

/** A draft this long is told to main after a pause in typing, not on every key. */
const LONG_DRAFT_CHARS = 100_000;

/** What tells two drafts apart for main: their text and how main keeps their images. */
function draftSignature(draft: SavedDraft): string {
  return `${draft.text}\u0000${draft.images.map((image) => image.data).join(',')}`;
}

/** The file's bytes as base64, read by the browser itself. */
export function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onerror = () => reject(reader.error ?? new Error('unreadable'));
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.readAsDataURL(file);
  });
}

export function createDraftsSlice(set: StoreSet, get: StoreGet): DraftsSlice {
  let localAttachments = 0;
  /** What main was last told of each conversation's draft, and a long one's wait before it is told. */
  const keptDrafts = new Map<string, string>();
  const draftTimers = new Map<string, ReturnType<typeof setTimeout>>();

  const patchDraft = (tabId: string, update: (draft: Draft) => Draft) => {
    set((state) => ({ drafts: { ...state.drafts, [tabId]: update(state.drafts[tabId] ?? EMPTY_DRAFT) } }));
    keepDraft(tabId);
  };

  /**
   * Tells main the tab's draft as it is now, so that a reload finds it: at once (the page may go any
   * moment), and only when its text or images changed. A very long text waits for a pause in typing.
   */
  const keepDraft = (tabId: string) => {
    const tab = get().tabs[tabId];
    const conversationId = tab && !tab.starting ? liveConversationId(tab) : null;
    if (!conversationId) return;
    const draft = get().drafts[tabId] ?? EMPTY_DRAFT;
    const kept: SavedDraft = {
      text: draft.text,
      images: draft.attachments.flatMap((attachment) =>
        attachment.image && attachment.ref ? [{ ...attachment.image, data: attachment.ref }] : [],
      ),
    };
    const signature = draftSignature(kept);
    if (keptDrafts.get(conversationId) === signature) return;
    keptDrafts.set(conversationId, signature);
    clearTimeout(draftTimers.get(conversationId));
    const tell = () => {
      draftTimers.delete(conversationId);
      // Best effort: the draft on screen is what counts, and a failure here loses nothing shown.
      void call('setDraft', { conversationId, draft: kept }).catch(() => keptDrafts.delete(conversationId));
    };
    if (kept.text.length > LONG_DRAFT_CHARS) draftTimers.set(conversationId, setTimeout(tell, 500));
    else tell();
  };

  const prepare = async (tabId: string, attachment: Attachment, file: File, imagesInTurn: number) => {
    let refusal: string | null = null;
    let image: PreparedImage | null = null;
    let ref: string | null = null;
    try {
      if (file.size > MAX_IMAGE_FILE_BYTES) {
        refusal = refusalMessage({ name: file.name, reason: 'too_large' });
      } else {
        const answer = await call('prepareImage', {
          name: file.name,
          data: await readBase64(file),
          imagesInTurn,
        });
        if (answer.ok) {
          image = answer.image;
          ref = answer.ref;
        } else refusal = answer.message;
      }
    } catch (error) {
      refusal = `${file.name} could not be read: ${error instanceof Error ? error.message : String(error)}`;
    }
    patchDraft(tabId, (draft) => {
      let reason = refusal;
      if (image) {
        // One request to the API has a size limit: the images of a message must fit in it together.
        const others = draft.attachments.reduce(
          (sum, existing) => sum + (existing.image?.data.length ?? 0),
          0,
        );
        if (others + image.data.length > IMAGE_LIMITS.maxTurnBase64Length) {
          reason = refusalMessage({ name: file.name, reason: 'turn_too_large' });
        }
      }
      const accepted = image && !reason ? image : null;
      return {
        ...draft,
        refusals: reason ? [...draft.refusals, reason] : draft.refusals,
        attachments: accepted
          ? draft.attachments.map((existing) =>
              existing.id === attachment.id ? { ...existing, image: accepted, ref } : existing,
            )
          : draft.attachments.filter((existing) => existing.id !== attachment.id),
        // A refused image is news the user should read before the message goes.
        ...(reason ? { sendWhenReady: false } : {}),
      };
    });
    await sendIfReady(tabId);
  };

  /** Sends a draft whose send waited for its images, once none is still being checked. */
  const sendIfReady = async (tabId: string) => {
    const draft = get().drafts[tabId];
    if (!draft?.sendWhenReady || draft.attachments.some((attachment) => !attachment.image)) return;
    patchDraft(tabId, (current) => ({ ...current, sendWhenReady: false }));
    await get().send(tabId);
  };

  return {
    drafts: {},

    async attachFiles(tabId, files) {
      const draft = get().drafts[tabId] ?? EMPTY_DRAFT;
      const refusals: string[] = [];
      const accepted: { attachment: Attachment; file: File }[] = [];
      for (const file of files) {
        const count = draft.attachments.length + accepted.length + 1;
        if (count > IMAGE_LIMITS.maxImagesPerTurn) {
          refusals.push(refusalMessage({ name: file.name, reason: 'too_many' }));
          continue;
        }
        accepted.push({
          attachment: { id: `image-${++localAttachments}`, name: file.name, image: null, ref: null },
          file,
        });
      }
      patchDraft(tabId, (current) => ({
        ...current,
        attachments: [...current.attachments, ...accepted.map((entry) => entry.attachment)],
        refusals: [...current.refusals, ...refusals],
      }));
      const total = draft.attachments.length + accepted.length;
      await Promise.all(accepted.map(({ attachment, file }) => prepare(tabId, attachment, file, total)));
    },

    removeAttachment(tabId, attachmentId) {
      patchDraft(tabId, (draft) => ({
        ...draft,
        attachments: draft.attachments.filter((attachment) => attachment.id !== attachmentId),
        // The message changed after Enter: it waits for the user again.
        sendWhenReady: false,
      }));
    },

    setDraftText(tabId, text) {
      patchDraft(tabId, (draft) => ({ ...draft, text, sendWhenReady: false }));
    },

    restoreDraft(tabId, text, images) {
      patchDraft(tabId, (draft) => ({
        ...draft,
        sendWhenReady: false,
        text,
        attachments: images.map((image, index) => ({
          id: `image-${++localAttachments}`,
          name: `image ${index + 1}`,
          // Main keeps it by this (a reference, as events carry images, or its base64).
          ref: image.data,
          image: {
            name: `image ${index + 1}`,
            mediaType: image.mediaType,
            data: image.data,
            // Already prepared when it was first sent; its size is not needed again.
            width: 1,
            height: 1,
            originalWidth: 1,
            originalHeight: 1,
            resized: false,
          },
        })),
      }));
    },

    dismissRefusals(tabId) {
      patchDraft(tabId, (draft) => ({ ...draft, refusals: [] }));
    },
    async send(tabId) {
      const draft = get().drafts[tabId] ?? EMPTY_DRAFT;
      const text = draft.text.trim();
      if (!text && draft.attachments.length === 0) return false;
      if (draft.attachments.some((attachment) => !attachment.image)) {
        patchDraft(tabId, (current) => ({ ...current, sendWhenReady: true }));
        return false;
      }
      const images = draft.attachments.flatMap((attachment) =>
        attachment.image ? [{ mediaType: attachment.image.mediaType, data: attachment.image.data }] : [],
      );
      const sentIds = new Set(draft.attachments.map((attachment) => attachment.id));
      // Clear at once, so a second Enter cannot send it twice; anything added meanwhile is kept. The notes
      // about files refused for this message go with it.
      patchDraft(tabId, (current) => ({
        ...current,
        text: current.text === draft.text ? '' : current.text,
        attachments: current.attachments.filter((attachment) => !sentIds.has(attachment.id)),
        refusals: current.refusals.slice(draft.refusals.length),
      }));
      const sent = await get().sendMessage(tabId, text, images);
      if (!sent) {
        // Nothing is lost: the message and its images come back, ahead of anything typed since.
        patchDraft(tabId, (current) => ({
          ...current,
          text: current.text ? `${draft.text}\n${current.text}` : draft.text,
          attachments: [
            ...draft.attachments,
            ...current.attachments.filter((attachment) => !sentIds.has(attachment.id)),
          ],
        }));
      }
      return sent;
    },

    draftFromMain(saved) {
      return {
        text: saved.text,
        refusals: [],
        attachments: saved.images.map((image) => ({
          id: `image-${++localAttachments}`,
          name: image.name,
          image,
          ref: image.data,
        })),
      };
    },

    draftsHeard(conversations) {
      for (const { conversationId, draft } of conversations)
        keptDrafts.set(conversationId, draftSignature(draft));
    },

    tellDrafts() {
      keptDrafts.clear();
      for (const tabId of Object.keys(get().drafts)) keepDraft(tabId);
    },

    moveDraft(from, to) {
      const draft = get().drafts[from];
      if (!draft || from === to) return;
      set((state) => {
        const { [from]: moved, ...rest } = state.drafts;
        return { drafts: moved ? { ...rest, [to]: moved } : rest };
      });
      keepDraft(to);
    },

    dropDrafts(tabId, conversationIds) {
      // Nothing more is told to main of a draft whose conversation ends.
      for (const id of [tabId, ...conversationIds]) {
        clearTimeout(draftTimers.get(id));
        draftTimers.delete(id);
        keptDrafts.delete(id);
      }
      set((state) => {
        const { [tabId]: _draft, ...rest } = state.drafts;
        return { drafts: rest };
      });
    },
  };
}
