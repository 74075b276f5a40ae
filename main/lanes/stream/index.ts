/**
 * The Stream lane: Claude Code in stream-json mode, every event typed, control requests both ways, through
 * the driver (main/claude). main/conversation/ reaches the driver only through here, as it reaches the
 * Terminal lane only through main/lanes/terminal/ (scripts/check-imports.mjs holds it).
 */
export { Session, BYRE_MCP_SERVER } from '../../claude';
export type { CanUseTool, HookRegistration, OnElicitation, SessionEvent, SessionOptions } from '../../claude';
export { StreamTail } from '../../claude/stream-tail';
/** The raw text of a line the driver decoded, as the CLI wrote it (for events written back out as JSON). */
export { lineTextOf } from '../../claude/decode';
