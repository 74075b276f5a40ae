import type { ConversationEvent } from '../../shared/ipc';

type ActivityEvent = Extract<ConversationEvent, { kind: 'activity' }>;
type ActivityState = ActivityEvent['state'];
type ToolEvent = Extract<ConversationEvent, { kind: 'tool' }>;

/** The fields that say what a tool works on, most telling first. */
const DETAIL_FIELDS = [
  'command',
  'file_path',
  'notebook_path',
  'pattern',
  'url',
  'query',
  'path',
  'description',
];

/** What a tool works on, in a line: its command, file, pattern, address; null when its input says none. */
export function toolDetail(input: unknown): string | null {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return null;
  const fields = input as Record<string, unknown>;
  for (const field of DETAIL_FIELDS) {
    const value = fields[field];
    if (typeof value !== 'string') continue;
    const line = value.trim().split('\n', 1)[0]?.trim() ?? '';
    if (line) return line.length > 500 ? `${line.slice(0, 499)}…` : line;
  }
  return null;
}

/** A tool Claude uses, in the lane-neutral words a tab or a sidebar row reads. */
export function toolEvent(name: string, input: unknown): ToolEvent {
  return { kind: 'tool', name: name.slice(0, 200), detail: toolDetail(input) };
}

/** The tools a Stream conversation's event says Claude uses: an assistant line's tool_use blocks. */
export function toolEventsOf(event: ConversationEvent): ToolEvent[] {
  if (event.kind !== 'message' || event.message.type !== 'assistant') return [];
  return event.message.message.content.flatMap((block) =>
    block.type === 'tool_use' ? [toolEvent(block.name, block.input)] : [],
  );
}

/**
 * Where a Stream conversation's turn stands, told from its own events in the lane-neutral words a Terminal
 * conversation's hooks give (an `activity` event): Claude works, it waits for the person (and for what: a
 * permission, its questions, its plan, an MCP server's form), or its turn is done. So a tab, a sidebar row
 * or a notification tells "needs you" from "done" the same way in either lane.
 */
export class TurnActivity {
  private state: ActivityState | null = null;
  private what: string | null = null;
  /** What each request still waiting for the person asks, in the order they came. */
  private readonly waiting = new Map<string, string>();

  /**
   * The activity `event` leads to, when where the turn stands changed; null otherwise. `busy`: a turn still
   * runs or waits to (a prompt sent while the last one ran carries on after its result).
   */
  after(event: ConversationEvent, busy: boolean): ActivityEvent | null {
    switch (event.kind) {
      case 'prompt':
        return this.waiting.size > 0 ? null : this.to('working');
      case 'permission_request':
        this.waiting.set(event.requestId, asksFor(event));
        return this.waitingNow();
      case 'elicitation_request':
        this.waiting.set(event.requestId, `${event.serverName} asks you: ${event.message}`.slice(0, 2_000));
        return this.waitingNow();
      case 'permission_resolved':
      case 'elicitation_resolved':
        if (!this.waiting.delete(event.requestId)) return null;
        if (this.waiting.size > 0) return this.waitingNow();
        // Answered, Claude works on. (Denied all at once as the process ends: its exit says what happened.)
        return busy ? this.to('working') : null;
      case 'message':
        if (event.message.type !== 'result') return null;
        this.waiting.clear();
        return this.to(busy ? 'working' : 'done');
      case 'exit':
        // The process ended: nothing waits any more; the tab says how it ended, not "done".
        this.waiting.clear();
        this.state = null;
        this.what = null;
        return null;
      default:
        return null;
    }
  }

  private waitingNow(): ActivityEvent | null {
    const first = this.waiting.values().next();
    return this.to('needs_you', first.done ? null : first.value);
  }

  private to(state: ActivityState, what: string | null = null): ActivityEvent | null {
    if (state === this.state && what === this.what) return null;
    this.state = state;
    this.what = what;
    return { kind: 'activity', state, what };
  }
}

/** What a permission request asks of the person, in a line for a tab's title or a notification. */
function asksFor(request: Extract<ConversationEvent, { kind: 'permission_request' }>): string {
  const { interaction } = request;
  if (interaction?.kind === 'questions') {
    const [first] = interaction.questions;
    const more = interaction.questions.length > 1 ? ` (and ${interaction.questions.length - 1} more)` : '';
    return `Claude asks you: ${first?.question ?? 'a question'}${more}`.slice(0, 2_000);
  }
  if (interaction?.kind === 'plan') return 'Claude has a plan for you to approve';
  const detail = toolDetail(request.input) ?? request.description ?? '';
  return `Claude asks to use ${request.displayName}${detail ? `: ${detail.slice(0, 500)}` : ''}`.slice(
    0,
    2_000,
  );
}
