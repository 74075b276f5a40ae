import type { PermissionMode } from '../../shared/protocol';

/** The name of the in-process MCP server the driver serves over the control channel. */
export const BYRE_MCP_SERVER = 'byre';

export interface LaunchOptions {
  model?: string;
  /** The id of a new session (or of a fork); known before the first turn. */
  sessionId?: string;
  /** Continue this session. */
  resume?: string;
  /** With resume: keep the conversation only up to and including the line with this uuid. */
  resumeSessionAt?: string;
  /** With resume: write the continuation to a new session (sessionId) and leave the original untouched. */
  forkSession?: boolean;
  cwd: string;
  permissionMode?: PermissionMode;
  /** Commit identity for git commands the agent runs. */
  identity?: { name: string; email: string };
  /**
   * What the CLI loads of the folder's own (FolderSettingsUse); `loaded` when absent. Whether a folder is
   * trusted is the app's to decide.
   */
  folderSettings?: FolderSettingsUse;
}

/**
 * `loaded`: the folder's own settings, MCP servers, agents, skills, commands and CLAUDE.md are Claude Code's
 * as usual. `off` and `none`: none of it is (`--setting-sources user --strict-mcp-config`), so none of its
 * hooks, helpers, servers or allow rules run (cli-facts 14); the user's own settings and Byre's --settings
 * and --mcp-config still apply. `off`: the folder holds some of it, held back (the header says so); `none`:
 * a folder Byre could not look at (a host's, without its files), where nothing is said.
 */
export type FolderSettingsUse = 'loaded' | 'off' | 'none';

/** The arguments that keep a folder's own settings, servers and files from the CLI. */
export function restrictedArgs(use: FolderSettingsUse | undefined): string[] {
  return use === 'off' || use === 'none' ? ['--setting-sources=user', '--strict-mcp-config'] : [];
}

export interface Launch {
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * What the launch changes in the environment it was given: a CLI run elsewhere (over ssh) gets just these
   * on top of its own host's environment, never this machine's.
   */
  envSet: Record<string, string>;
  envUnset: string[];
}

const settings = JSON.stringify({ attribution: { commit: '', pr: '' } });
const mcpConfig = JSON.stringify({
  mcpServers: { [BYRE_MCP_SERVER]: { type: 'sdk', name: BYRE_MCP_SERVER, alwaysLoad: true } },
});

/** The launch line of claude-protocol.md, built from typed options. */
export function buildLaunch(options: LaunchOptions, baseEnv: NodeJS.ProcessEnv = process.env): Launch {
  if (options.resumeSessionAt && !options.resume) {
    throw new Error('resumeSessionAt needs resume: it names a line in the session being resumed.');
  }
  if (options.sessionId && options.resume && !options.forkSession) {
    throw new Error('sessionId with resume needs forkSession: a resumed session keeps its own id.');
  }
  if (options.forkSession && !options.resume) {
    throw new Error('forkSession needs resume: only a resumed session can be forked.');
  }
  const permissionMode = options.permissionMode ?? 'bypassPermissions';
  // Values go in equals forms: a value that begins with a dash must never be read as a flag.
  const args = [
    '--output-format',
    'stream-json',
    '--input-format',
    'stream-json',
    '--verbose',
    '--include-partial-messages',
    // Without it the folder's own hooks run unseen: with it, each run is a hook_started/hook_response pair.
    '--include-hook-events',
    '--permission-mode',
    permissionMode,
    // Kept in every mode, as in the seed's line, so set_permission_mode can switch to bypass later.
    '--allow-dangerously-skip-permissions',
    // The CLI asks the host over the control channel (can_use_tool): in every mode, since the mode can be
    // changed mid-conversation (set_permission_mode) to one that asks.
    '--permission-prompt-tool',
    'stdio',
    '--settings',
    settings,
    '--mcp-config',
    mcpConfig,
  ];
  if (options.model) args.push(`--model=${options.model}`);
  if (options.sessionId) args.push(`--session-id=${options.sessionId}`);
  if (options.resume) args.push(`--resume=${options.resume}`);
  if (options.resumeSessionAt) args.push(`--resume-session-at=${options.resumeSessionAt}`);
  if (options.forkSession) args.push('--fork-session');
  args.push(...restrictedArgs(options.folderSettings));

  // The child must not think it runs nested inside another Claude Code.
  const envUnset = ['CLAUDECODE'];
  // Without it the CLI keeps no copies of the files its tools change, and rewind_files has nothing to restore.
  const envSet: Record<string, string> = { CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING: 'true' };
  if (options.identity) {
    envSet.GIT_AUTHOR_NAME = options.identity.name;
    envSet.GIT_AUTHOR_EMAIL = options.identity.email;
    envSet.GIT_COMMITTER_NAME = options.identity.name;
    envSet.GIT_COMMITTER_EMAIL = options.identity.email;
  }
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries({ ...baseEnv, ...envSet }).filter(([name]) => !envUnset.includes(name)),
  );
  return { args, env, cwd: options.cwd, envSet, envUnset };
}
