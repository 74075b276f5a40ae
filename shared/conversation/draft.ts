/**
 * The reducer's working copy of a state while it applies one batch: it copies the state object on each
 * change, and makes the next version of each record by id sharing all but the paths it set. (Not the
 * composer's draft of a message: that is the renderer's.)
 */
import { editRecord, type RecordEditor } from '../persistent-record';
import type { ChatMessage, ConversationState, ToolCall } from './state';

/** The state's records by id, which the reducer keeps as persistent records. */
type Records = Pick<ConversationState, 'messages' | 'tools' | 'blocksSeen' | 'taskTools'>;
type RecordValue<K extends keyof Records> = Records[K][string];

/**
 * One batch's changes to a state. The state object is copied on each `set`; a record by id is not copied
 * at all: the batch makes its next version, which shares all but the few trie nodes on the paths to the
 * entries the batch set.
 */
export class StateDraft {
  state: ConversationState;
  private readonly editors = new Map<keyof Records, RecordEditor<RecordValue<keyof Records>>>();
  private orderCopied = false;
  private changed = false;

  constructor(private readonly original: ConversationState) {
    this.state = original;
  }

  set(patch: Partial<ConversationState>): void {
    this.state = { ...this.state, ...patch };
    this.changed = true;
  }

  /** Sets one entry of a record by id. */
  setEntry<K extends keyof Records>(name: K, key: string, value: RecordValue<K>): void {
    let editor = this.editors.get(name);
    if (!editor) {
      editor = editRecord<RecordValue<keyof Records>>(this.state[name]);
      this.editors.set(name, editor);
      this.state = { ...this.state, [name]: editor.record };
    }
    editor.set(key, value);
    this.changed = true;
  }

  setMessage(message: ChatMessage): void {
    this.setEntry('messages', message.id, message);
  }

  setTool(tool: ToolCall): void {
    this.setEntry('tools', tool.id, tool);
  }

  /** Adds a message at the end of the conversation, or of the subagent it belongs to. */
  append(id: string, parentToolUseId: string | null): void {
    const tool = parentToolUseId ? this.state.tools[parentToolUseId] : undefined;
    if (tool) {
      this.setTool({ ...tool, children: [...tool.children, id] });
      return;
    }
    if (!this.orderCopied) {
      this.state = { ...this.state, order: this.state.order.slice() };
      this.orderCopied = true;
    }
    this.state.order.push(id);
    this.changed = true;
  }

  /** Takes the conversation's last message out of its order (it stays by id), if it is `id`. */
  dropLast(id: string): void {
    if (this.state.order[this.state.order.length - 1] !== id) return;
    this.state = { ...this.state, order: this.state.order.slice(0, -1) };
    this.orderCopied = true;
    this.changed = true;
  }

  finish(): ConversationState {
    for (const editor of this.editors.values()) editor.done();
    return this.changed ? this.state : this.original;
  }
}
