/**
 * The Stream lane: Claude Code in stream-json mode, every event typed, control requests both ways, through
 * the driver (main/claude). main/conversation/ reaches the driver only through here, as it reaches the
 * Terminal lane only through main/lanes/terminal/ (scripts/check-imports.mjs holds it).
 */
import type { Session } from '../../claude';
import type { LaneProcess } from '../lane';

export { Session, BYRE_MCP_SERVER } from '../../claude';
export type { CanUseTool, HookRegistration, OnElicitation, SessionEvent, SessionOptions } from '../../claude';
export { StreamTail } from '../../claude/stream-tail';
/** The raw text of a line the driver decoded, as the CLI wrote it (for events written back out as JSON). */
export { lineTextOf } from '../../claude/decode';

/**
 * A Stream lane process, as a conversation drives it: a LaneProcess that also speaks the control channel
 * both ways (prompts, interrupts, mode and model, MCP servers, tasks, file rewind), says what the CLI is
 * (`info`), and keeps Byre's transcript of the run. main/conversation/ sees a Stream CLI only as this.
 */
export type StreamProcess = LaneProcess &
  Pick<
    Session,
    | 'id'
    | 'cwd'
    | 'info'
    | 'on'
    | 'prepare'
    | 'resumeOptions'
    | 'pendingTurns'
    | 'cancelQueued'
    | 'interrupt'
    | 'close'
    | 'setModel'
    | 'setPermissionMode'
    | 'getContextUsage'
    | 'mcpStatus'
    | 'mcpToggle'
    | 'mcpReconnect'
    | 'stopTask'
    | 'rewindFiles'
    | 'folderSettings'
    | 'recordByre'
    | 'transcriptPath'
    | 'transcriptError'
  >;
