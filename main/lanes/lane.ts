/**
 * What either lane says the same way: a CLI that would not start or ended, with its code or signal and the
 * tail of what it said. A Stream conversation's driver and a Terminal conversation's PTY both end in it.
 */
export { CliExited } from '../claude/errors';
/**
 * What a host's shell prints before a command's own output over ssh (a greeting from ~/.bashrc), dropped
 * up to a marker line: for the lanes there, and for a "Done when" check there.
 */
export { Preamble } from '../claude/preamble';

/**
 * What every lane's CLI process is to the conversation that runs it, whichever the lane: whether it runs,
 * and ending it with all it started. A Stream lane's process adds the control channel (StreamProcess in
 * main/lanes/stream/); a Terminal lane's adds keys, size and flow control (TerminalProcess).
 */
export interface LaneProcess {
  readonly running: boolean;
  /** Ends the CLI cleanly, then what it started; resolves once it has (with how, in the Stream lane). */
  close(): Promise<unknown>;
  /** Ends the CLI and what it started at once (quitting). */
  kill(): void;
}
