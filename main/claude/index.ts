/** The claude driver: runs the CLI in stream-json mode and speaks its protocol. Pure Node; never electron. */
export { Session } from './session';
export type {
  PipeCommand,
  CanUseTool,
  HookCallback,
  HookRegistration,
  OnElicitation,
  SessionEvent,
  SessionOptions,
  Turn,
} from './session';
export { cliPathProblem, locateCli } from './locate';
export { buildLaunch, BYRE_MCP_SERVER, restrictedArgs } from './launch';
export type { FolderSettingsUse, Launch, LaunchOptions } from './launch';
export { killAllCliProcesses } from './registry';
export * from './errors';
export type { ExitInfo, CloseTimings } from './pipe';
export type { BadLine } from './decode';
