import { join } from 'node:path';
import { z } from 'zod';
import { LockFile, type LockHolder } from '../data/lock-file';
import { makePrivateDir } from '../disk/private-files';

/**
 * The browser host holds its data folder for as long as it runs (`host.lock`, with its pid and address): a
 * second host on the same folder would index the same library and race the first for its files, and the
 * user would have two addresses showing two different sets of open conversations. The second one says in
 * one line where the first is and stops instead. A lock left by a host that died is taken over.
 */

export const HOST_LOCK_FILE = 'host.lock';

const HostDetails = z.object({ address: z.string().nullable().catch(null) });

export interface DataFolderHold {
  /** Writes the address into the lock once the host listens, for a second host to point to. */
  announce(address: string): void;
  release(): void;
}

/** Takes the data folder for this host, or throws the one line to print: which host has it, and where. */
export function holdDataFolder(dataDir: string): DataFolderHold {
  makePrivateDir(dataDir);
  const lock = new LockFile(join(dataDir, HOST_LOCK_FILE));
  const result = lock.tryTake({ address: null });
  if (!result.taken) throw new Error(alreadyRunning(dataDir, result.holder));
  return {
    announce: (address) => lock.describe({ address }),
    release: () => lock.release(),
  };
}

function alreadyRunning(dataDir: string, holder: LockHolder): string {
  const { address } = HostDetails.parse(holder);
  return address
    ? `already running on ${dataDir} at ${address} (process ${holder.pid}); open that address, or stop it first.`
    : `already starting on ${dataDir} (process ${holder.pid}); it prints its address where it was started.`;
}
