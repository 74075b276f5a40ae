/**
 * Prompts a conversation holds back before they go to the CLI: the one that starts a turn waits for the
 * folder's snapshot before it (Changes), so that the turn's changes are only its own, and the prompts sent
 * meanwhile wait behind it, in order. A gate (a new worktree's setup command) holds every prompt sent while
 * it is shut, however long, and lets them go in order when it opens. Each still shows at once; one
 * cancelled, or stopped, while it waits is never sent.
 */
import type { ConversationEvent } from '../../shared/ipc';

export interface HeldPrompt {
  uuid: string;
  /** Writes it to the CLI; throws if the CLI no longer takes messages. */
  send(): unknown;
}

export class HeldPrompts {
  private readonly waiting = new Set<string>();
  private chain: Promise<void> = Promise.resolve();
  /** Gates not yet open. */
  private shut = 0;

  constructor(private readonly emit: (event: ConversationEvent) => void) {}

  /** Whether any prompt waits, or a gate is shut: those sent now must wait too, to keep their order. */
  get any(): boolean {
    return this.waiting.size > 0 || this.shut > 0;
  }

  /** Holds every prompt sent from now on until `open` settles (whichever way), then lets them go in order. */
  gate(open: Promise<unknown>): void {
    this.shut++;
    const opened = open.then(
      () => undefined,
      () => undefined,
    );
    void opened.then(() => this.shut--);
    this.chain = this.chain.then(() => opened);
  }

  /**
   * Sends `prompt` after the ones held before it, and after `before` (the snapshot) when it starts a turn.
   * `stillOurs` says whether the process it was meant for still runs the conversation.
   */
  hold(prompt: HeldPrompt, before: (() => Promise<void>) | null, stillOurs: () => boolean): void {
    const first = this.waiting.size === 0;
    this.waiting.add(prompt.uuid);
    this.chain = this.chain.then(async () => {
      if (first && before) await before();
      if (!this.waiting.delete(prompt.uuid)) return;
      try {
        if (!stillOurs()) throw new Error('Claude Code was restarted meanwhile.');
        prompt.send();
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        this.emit({ kind: 'prompt_cancelled', uuid: prompt.uuid });
        this.emit({ kind: 'warning', message: `The message was not sent: ${why}` });
      }
    });
  }

  /** Cancels one that waits; false if it is not waiting (it was sent, or never held). */
  cancel(uuid: string): boolean {
    if (!this.waiting.delete(uuid)) return false;
    this.emit({ kind: 'prompt_cancelled', uuid });
    return true;
  }

  /** Drops every one that waits, each shown as cancelled (Stop). */
  dropAll(): void {
    for (const uuid of this.waiting) this.emit({ kind: 'prompt_cancelled', uuid });
    this.waiting.clear();
  }

  /** Forgets them without a word (the conversation closes). */
  clear(): void {
    this.waiting.clear();
  }
}
