/** Typed errors the UI turns into states (STYLE.md: CLI not found, CLI exited, protocol error, error result). */

export class CliNotFound extends Error {
  override readonly name = 'CliNotFound';
  constructor(
    readonly looked: readonly string[],
    /** Why a path the user chose (BYRE_CLAUDE_PATH, or the launch's own) is not the CLI, in a sentence. */
    readonly explanation?: string,
  ) {
    super(
      explanation ??
        `The claude CLI was not found. Looked in:\n${looked.map((place) => `  - ${place}`).join('\n')}`,
    );
  }
}

export class CliExited extends Error {
  override readonly name = 'CliExited';
  constructor(
    readonly code: number | null,
    readonly signal: NodeJS.Signals | null,
    readonly stderrTail: string,
  ) {
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    super(`The claude CLI ${how}${stderrTail ? `:\n${stderrTail}` : '.'}`);
  }
}

/** The CLI answered a control request with an error; `message` is the CLI's own. */
export class ControlRequestFailed extends Error {
  override readonly name = 'ControlRequestFailed';
  constructor(
    readonly subtype: string,
    message: string,
    readonly errorCode?: string,
  ) {
    super(message);
  }
}

export class ControlRequestTimeout extends Error {
  override readonly name = 'ControlRequestTimeout';
  constructor(
    readonly subtype: string,
    readonly timeoutMs: number,
  ) {
    super(`The claude CLI did not answer ${subtype} within ${timeoutMs} ms.`);
  }
}

/** A line we were about to send failed its schema; it was not written, since one bad line ends the CLI. */
export class InvalidOutgoingMessage extends Error {
  override readonly name = 'InvalidOutgoingMessage';
}

/** The session has ended (closed, or the CLI exited) and cannot take more input. */
export class SessionClosed extends Error {
  override readonly name = 'SessionClosed';
}

/** A queued prompt that was cancelled before it ran. */
export class TurnCancelled extends Error {
  override readonly name = 'TurnCancelled';
  constructor(readonly uuid: string) {
    super(`The queued message ${uuid} was cancelled before it ran.`);
  }
}
