import { z } from 'zod';

/**
 * Other hosts over ssh. A host is named as the user picks it: a `Host` alias of the one ssh config file, or
 * `user@host[:port]` typed under "Other…".
 */

export const HostName = z.string().trim().min(1).max(300);

export const remoteChannels = {
  /** The hosts the "Where" list offers: the config file's `Host` entries without wildcards, in its order. */
  remoteHosts: {
    request: z.object({}),
    response: z.object({
      /** The file they come from, which every ssh of Byre's is given; null when there is none. */
      configFile: z.string().nullable(),
      hosts: z.array(z.string()),
    }),
  },
  /**
   * The folder field's help on a host: the folders there whose paths start with `prefix` (the home folder's
   * when it is empty), and the folders conversations ran in there before, newest first.
   */
  remoteFolders: {
    request: z.object({ host: HostName, prefix: z.string().max(4096) }),
    response: z.object({ folders: z.array(z.string()), recent: z.array(z.string()) }),
  },
  /**
   * Keeps the keys of a host whose key was not known, as the user saw them (`fingerprints`, as the error
   * listed them), in the known_hosts file ssh reads for it. A key that is not one shown is refused.
   */
  acceptHostKey: {
    request: z.object({ host: HostName, fingerprints: z.array(z.string().min(1).max(200)).min(1).max(20) }),
    response: z.object({}),
  },
};
