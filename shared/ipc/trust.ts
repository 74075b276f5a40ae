/**
 * Trust: what a folder's own settings would do, the user's answer, and the folders trusted so far. No CLI
 * starts in a folder with settings that can run code until this is answered (DESIGN.md, "Trust").
 */
import { z } from 'zod';
import { ConversationSnapshot } from './conversation';
import { ConversationRef, Empty, FolderPath } from './refs';
import { HostName } from './remote';

/** One thing a folder's own settings would do, in words for the trust question. */
export const TrustItem = z.object({
  /** The file it comes from, relative to the folder: `.claude/settings.json`, `.mcp.json`, `CLAUDE.md`. */
  file: z.string(),
  kind: z.enum([
    'hook',
    /** A script a hook runs, whose contents trust covers. */
    'script',
    /** CLAUDE.md, its rules and imports: what Claude is told. */
    'instructions',
    'agent',
    'skill',
    'command',
    'outputStyle',
    /** A program the repository's own git config names (a filter, a diff driver, a credential helper). */
    'gitProgram',
    'mcpServer',
    'allowRule',
    'askRule',
    'directory',
    'defaultMode',
    'env',
    'helper',
    'plugin',
    'setting',
    'unreadable',
  ]),
  text: z.string(),
});
export type TrustItem = z.infer<typeof TrustItem>;

/** What a folder's own settings would do, and whether Byre may let them. */
export const FolderTrust = z.object({
  /** The folder's real path: trust is kept by it. */
  folder: z.string(),
  /** Of the files that can run code or widen permissions, as they are now; a decision names it. */
  digest: z.string(),
  /** The files hold something that runs code or widens what Claude may do. */
  needsTrust: z.boolean(),
  /** The host the folder is on; absent: this computer. */
  host: z.string().optional(),
  /** Trusted with these very files (by Byre, or by Claude Code's own trust record). */
  trusted: z.boolean(),
  items: z.array(TrustItem),
  /** The folder was trusted with other files: what is new since, and what went. */
  changed: z.object({ added: z.array(TrustItem), removed: z.array(TrustItem) }).nullable(),
});
export type FolderTrust = z.infer<typeof FolderTrust>;

export const TrustedFolder = z.object({
  folder: z.string(),
  trustedAt: z.number(),
  /** Trusted in Byre, or taken over from Claude Code's own record of the folder. */
  source: z.enum(['byre', 'claude']),
});
export type TrustedFolder = z.infer<typeof TrustedFolder>;

export const trustChannels = {
  /** What a folder's own settings would do, for the "Trust this folder?" question. */
  folderTrust: { request: z.object({ cwd: FolderPath, host: HostName.optional() }), response: FolderTrust },
  /**
   * The answer to that question for the files with `digest`: trust (kept in trust.json) or not (until Byre
   * quits). A digest that no longer matches the files records nothing: the next start asks again.
   */
  decideTrust: {
    request: z.object({
      folder: FolderPath,
      host: HostName.optional(),
      digest: z.string().max(200),
      trust: z.boolean(),
    }),
    response: Empty,
  },
  trustedFolders: { request: Empty, response: z.object({ folders: z.array(TrustedFolder) }) },
  forgetTrust: { request: z.object({ folder: FolderPath }), response: Empty },
  /** Starts the conversation's CLI again, now with its (trusted) folder's settings; refused mid-reply. */
  useFolderSettings: { request: ConversationRef, response: ConversationSnapshot },
} satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;
