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
};
