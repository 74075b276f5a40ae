import { defaultLane, loginOf } from '../../lanes/login';
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { AppInfo, InvokeResponse, SettingsView } from '../../../shared/ipc';
import { CliNotFound, cliPathProblem, locateCli } from '../../claude';
import { commandFor, type Command } from '../../claude/cmd-shim';
import { InvalidSetting, NotAFolder, NotSupported } from '../errors';
import { hostFolderKey } from '../../data/host-folders';
import { isDirectory } from '../open-conversations';
import type { HandlersOf, Parts } from '../parts';

/** The app and its settings: what the host is, the settings screen, the claude program, folders and links. */
export function appHandlers(
  parts: Parts,
): HandlersOf<
  | 'appInfo'
  | 'settings'
  | 'saveSettings'
  | 'testCli'
  | 'openDataFolder'
  | 'setDefaultPermissionMode'
  | 'commitIdentity'
  | 'setCommitIdentity'
  | 'pickFolder'
  | 'checkFolder'
  | 'openLink'
> {
  const { options, settings } = parts;
  /**
   * The folder "Commit as" is kept for: a Byre worktree's repository (as its conversations start and merge
   * with it), and a folder on a host by its hostFolderKey (the same path here is another folder).
   */
  const identityFolder = (cwd: string, host: string | undefined) => {
    const folder = host ? cwd : resolve(cwd);
    const settled = parts.worktrees.at(folder, host ?? null)?.repository ?? folder;
    return host ? hostFolderKey(host, settled) : settled;
  };
  const settingsView = (): SettingsView => ({
    values: settings.values,
    cliFromEnvironment: options.env.BYRE_CLAUDE_PATH || null,
    dataDir: options.dataDir,
    canOpenFolders: !!options.openFolder,
  });
  const findCli = (): AppInfo['cli'] => {
    try {
      return { found: true, path: locateCli({ env: parts.open.cliEnv() }) };
    } catch (error) {
      if (error instanceof CliNotFound) {
        return {
          found: false,
          looked: [...error.looked],
          ...(error.explanation ? { explanation: error.explanation } : {}),
        };
      }
      throw error;
    }
  };
  return {
    appInfo: async () => ({
      host: options.host,
      version: options.version,
      dataDir: options.dataDir,
      initialCwd: options.initialCwd,
      initialLane: options.initialLane ?? null,
      recentFolders: settings.recentFolders,
      defaultPermissionMode: settings.defaultPermissionMode,
      defaultLane: defaultLane(settings.values.defaultLane, loginOf(options.env)),
      login: loginOf(options.env),
      settingsProblems: settings.problems,
      theme: settings.values.theme,
      notifications: settings.values.notifications,
      defaultModel: settings.values.defaultModel,
      cli: findCli(),
    }),
    settings: async () => settingsView(),
    saveSettings: async (values) => {
      if (values.cliPath) {
        const problem = cliPathProblem(values.cliPath);
        if (problem) throw new InvalidSetting(`The claude program: ${problem}`);
      }
      if (values.sshConfigFile) {
        const problem = readableFileProblem(values.sshConfigFile);
        if (problem) throw new InvalidSetting(`The ssh config file: ${problem}`);
      }
      settings.update(values);
      return settingsView();
    },
    testCli: async ({ path }) => {
      let program: string;
      if (path) {
        const problem = cliPathProblem(path);
        if (problem) return { ok: false, reason: problem };
        program = path;
      } else {
        const found = findCli();
        if (!found.found) return { ok: false, reason: found.explanation ?? 'Byre found no claude program.' };
        program = found.path;
      }
      return cliVersion(program, options.env);
    },
    openDataFolder: async () => {
      if (!options.openFolder) throw new InvalidSetting('This host cannot open folders.');
      await options.openFolder(options.dataDir);
      return {};
    },
    setDefaultPermissionMode: async ({ mode }) => {
      settings.setDefaultPermissionMode(mode);
      return {};
    },
    commitIdentity: async ({ cwd, host }) => ({
      global: settings.globalCommitIdentity,
      folder: settings.folderCommitIdentity(identityFolder(cwd, host)),
    }),
    setCommitIdentity: async ({ scope, cwd, host, identity }) => {
      settings.setCommitIdentity(
        scope === 'global' ? 'global' : { folder: identityFolder(cwd, host) },
        identity,
      );
      return {};
    },
    pickFolder: async () => ({ path: options.pickFolder ? await options.pickFolder() : null }),
    checkFolder: async ({ cwd }) => {
      const folder = resolve(cwd);
      if (!isDirectory(folder)) throw new NotAFolder(`${folder} is not a folder, or does not exist.`);
      return { path: folder };
    },
    openLink: async ({ url }) => {
      if (!options.openExternal)
        throw new NotSupported('This host cannot open links; your browser opens them.');
      await options.openExternal(url);
      return {};
    },
  };
}

/** What `claude --version` says, or why it could not be run; within 20 s. */
function cliVersion(program: string, env: NodeJS.ProcessEnv): Promise<InvokeResponse<'testCli'>> {
  return new Promise((done) => {
    let run: Command;
    try {
      run = commandFor(program, ['--version']);
    } catch (error) {
      done({ ok: false, reason: error instanceof Error ? error.message : String(error) });
      return;
    }
    execFile(run.command, run.args, { env, timeout: 20_000, windowsHide: true }, (error, stdout, stderr) => {
      // "2.1.332 (Claude Code)": the screen says whose version it is.
      const said = (`${stdout}`.trim().split('\n')[0] ?? '').replace(/\s*\(Claude Code\)$/, '');
      if (!error && said) {
        done({ ok: true, path: program, version: said });
        return;
      }
      const detail = `${stderr}`.trim().split('\n')[0] || error?.message || 'it printed nothing';
      done({
        ok: false,
        reason: error?.killed
          ? `${program} --version did not answer within 20 s.`
          : `${program} --version failed: ${detail}`,
      });
    });
  });
}

/** Why a path is not a file Byre can read, or null. */
function readableFileProblem(path: string): string | null {
  if (!isAbsolute(path)) return `${path} is not a full path (it starts with /).`;
  try {
    if (!statSync(path).isFile()) return `${path} is not a file.`;
    accessSync(path, constants.R_OK);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `there is no file ${path}.` : `${path} cannot be read (${code ?? 'error'}).`;
  }
}
