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
