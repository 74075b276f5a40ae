import { call } from '../host/api';
import type { TrustSlice } from './types';

/**
 * The renderer's side of trust (main/trust.ts): when main refuses to start a CLI because a folder's own
 * settings wait for the user's answer (TrustNeeded), the "Trust this folder?" dialog asks, main is told the
 * answer, and what was refused runs again. Every call that starts a CLI goes through `trusted`.
 */

/** How many times one start may be refused for trust: the files can change while the user reads. */
const MAX_ASKS = 3;

export function trustSlice(set: (partial: Partial<TrustSlice>) => void, get: () => TrustSlice): TrustSlice {
  /** One question at a time; a second start in the same folder waits for the same answer. */
  const asking = new Map<string, Promise<boolean>>();
  let answer: ((trust: boolean) => void) | null = null;
  /** Questions about different folders wait their turn. */
  let queue: Promise<unknown> = Promise.resolve();

  const ask = async (folder: string, host: string | undefined): Promise<boolean> => {
    const view = await call('folderTrust', host ? { cwd: folder, host } : { cwd: folder });
    if (!view.needsTrust || view.trusted) return true;
    const shown = queue.then(
      () =>
        new Promise<boolean>((resolve) => {
          answer = resolve;
          set({ trustQuestion: view });
        }),
    );
    queue = shown.catch(() => undefined);
    const trust = await shown;
    await call('decideTrust', {
      folder: view.folder,
      ...(view.host ? { host: view.host } : {}),
      digest: view.digest,
      trust,
    });
    return trust;
  };

  return {
    trustQuestion: null,

    async trusted(start) {
      for (let asked = 0; ; asked++) {
        try {
          return await start();
        } catch (error) {
          const { folder, host } = error as { name?: string; folder?: string; host?: string };
          if ((error as Error).name !== 'TrustNeeded' || !folder || asked === MAX_ASKS) throw error;
          await get().askTrust(folder, host);
        }
      }
    },

    askTrust(folder, host) {
      // A folder of the same path on a host is another folder.
      const key = `${host ?? ''}\0${folder}`;
      let pending = asking.get(key);
      if (!pending) {
        pending = ask(folder, host).finally(() => asking.delete(key));
        asking.set(key, pending);
      }
      return pending;
    },

    listTrusted: async () => (await call('trustedFolders', {})).folders,

    forgetTrust: async (folder) => {
      await call('forgetTrust', { folder });
    },

    answerTrust(trust) {
      const resolve = answer;
      answer = null;
      set({ trustQuestion: null });
      resolve?.(trust);
    },
  };
}
