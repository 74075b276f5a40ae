import { memo, useEffect, useRef, useState, type ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { TurnImage } from '../../../shared/ipc';
import {
  INTERACTIVE_TOOLS,
  taskRunning,
  type AssistantChatMessage,
  type ChatMessage,
  type ResultChatMessage,
  type UserChatMessage,
} from '../../../shared/conversation';
import { BranchSwitcher } from '../branches/BranchViews';
import { liveConversationId } from '../state/selectors';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { imageSource } from '../host/images';
import { useStore } from '../state/store';
import { StopTaskButton } from './BackgroundTasks';
import { turnFigures } from './figures';
import { SetupCard } from './SetupCard';
import { CheckCard } from './DoneWhen';
import { CliItemView } from './CliItemView';
import { CopyButton } from '../ui/CopyButton';
import { ShowProtocolLines } from './Inspector';
import { Markdown } from './Markdown';
import { InteractiveToolCall } from './InteractiveToolCall';
import { PermissionCards, requestsHeldBy } from './PermissionCard';
import { ToolCard } from './ToolCard';

/**
 * One message of the conversation. Each row subscribes to its own message (and each tool card to its own
 * call), so a streaming reply re-renders itself and nothing else. `nextId`: the message after it in the
 * conversation's order, for a top-level message.
 */
export const MessageView = memo(function MessageView({
  tabId,
  id,
  nextId,
}: {
  tabId: string;
  id: string;
  nextId?: string;
}) {
  const message = useStore((state) => state.tabs[tabId]?.conversation.messages[id]);
  if (!message) return null;
  // A message whose content breaks rendering (the model's tool input is untrusted) costs only its row.
  return (
    <ErrorBoundary what="this message">
      {!('parentToolUseId' in message && message.parentToolUseId) && (
        <BranchSwitcher tabId={tabId} messageId={id} />
      )}
      <MessageBody tabId={tabId} message={message} nextId={nextId} />
    </ErrorBoundary>
  );
});

function MessageBody({
  tabId,
  message,
  nextId,
}: {
  tabId: string;
  message: ChatMessage;
  nextId: string | undefined;
}) {
  switch (message.role) {
    case 'user':
      return <UserMessageView tabId={tabId} message={message} />;
    case 'assistant':
      return <AssistantMessageView tabId={tabId} message={message} nextId={nextId} />;
    case 'result':
      return <ResultView message={message} />;
    case 'notice':
      return (
        <div className={`notice notice-${message.tone}`} role={message.tone === 'error' ? 'alert' : 'note'}>
          {withInlineCode(message.text)}
        </div>
      );
    case 'check':
      return <CheckCard check={message.check} />;
    case 'setup':
      return <SetupCard setup={message.setup} tabId={tabId} />;
    case 'cli':
      return <CliItemView item={message.item} />;
  }
}

/** A reply's text as the reader sees it: its text parts, as paragraphs (tool calls and thinking left out). */
function replyText(message: AssistantChatMessage): string {
  return message.parts.flatMap((part) => (part.kind === 'text' && part.text ? [part.text] : [])).join('\n\n');
}

/** What Copy takes from a reply: its text; for a reply that is only tool calls, each call and its input. */
function replyOrCalls(tabId: string, message: AssistantChatMessage): string {
  const text = replyText(message);
  if (text) return text;
  const tools = useStore.getState().tabs[tabId]?.conversation.tools ?? {};
  return message.parts
    .flatMap((part) => {
      const tool = part.kind === 'tool' ? tools[part.toolUseId] : undefined;
      return tool ? [`${tool.name} ${JSON.stringify(tool.input)}`] : [];
    })
    .join('\n');
}

/** Text with its `backticked` spans shown as code, as notices from the CLI write commands and paths. */
export function withInlineCode(text: string): ReactNode[] {
  return text
    .split(/`([^`\n]+)`/)
    .map((piece, index) => (index % 2 === 1 ? <code key={index}>{piece}</code> : piece));
}

function UserMessageView({ tabId, message }: { tabId: string; message: UserChatMessage }) {
  const cancelQueued = useStore((state) => state.cancelQueued);
  const sendMessage = useStore((state) => state.sendMessage);
  const openRewind = useStore((state) => state.openRewind);
  const queued = message.status === 'queued' || message.status === 'sending';
  const rewindable = !message.parentToolUseId && message.status === 'sent' && !!message.uuid;
  // After a crash, until the resumed session is ready there is nothing to send it to.
  const takesMessages = useStore((state) => {
    const status = state.tabs[tabId]?.conversation.status;
    return state.connected && (status === 'idle' || status === 'running');
  });
  return (
    <article
      className={`message message-user status-${message.status}${message.parentToolUseId ? ' message-nested' : ''}`}
      aria-label={message.author}
    >
      <header className="author">
        {message.author}
        {message.text && (
          <span className="message-actions">
            <CopyButton text={() => message.text} title="Copy this message" />
          </span>
        )}
        {message.uuid && <ShowProtocolLines tabId={tabId} message={message} />}
        {rewindable && (
          <MessageAction
            label="Rewind"
            title="Go back to just before this message: edit it, restore files, or both"
            onClick={() => void openRewind(tabId, message.id)}
          />
        )}
      </header>
      {message.images.length > 0 && <ImageStrip images={message.images} />}
      {message.text && <div className="user-text">{message.text}</div>}
      {message.status === 'queued' && (
        <div className="queued-row">
          <span className="badge">Queued</span>
          <button
            type="button"
            className="link-button"
            onClick={() => void cancelQueued(tabId, message.uuid ?? '')}
          >
            Cancel queued message
          </button>
        </div>
      )}
      {message.status === 'cancelled' && (
        <div className="queued-row">
          <span className="badge badge-muted">Cancelled</span>
          {!message.parentToolUseId && (
            <button
              type="button"
              className="link-button"
              disabled={!takesMessages}
              title={takesMessages ? undefined : 'Once the conversation is running again'}
              onClick={() => void sendMessage(tabId, message.text, message.images)}
            >
              Send again
            </button>
          )}
        </div>
      )}
      {queued && message.status === 'sending' && <span className="sr-only">Sending</span>}
    </article>
  );
}

/** A button in a message's header, shown on hover and on keyboard focus. */
function MessageAction({ label, title, onClick }: { label: string; title: string; onClick: () => void }) {
  return (
    <span className="message-actions">
      <button type="button" className="link-button" title={title} onClick={onClick}>
        {label}
      </button>
    </span>
  );
}

/** Thumbnails of a sent message's images; a click opens one at full size. */
function ImageStrip({ images }: { images: TurnImage[] }) {
  const [open, setOpen] = useState<number | null>(null);
  const shown = open === null ? undefined : images[open];
  return (
    <>
      <ul className="sent-images" aria-label="Images">
        {images.map((image, index) => (
          <li key={index}>
            <button
              type="button"
              className="thumbnail"
              onClick={() => setOpen(index)}
              aria-label={`Open image ${index + 1} at full size`}
            >
              <Picture image={image} alt={`Image ${index + 1}`} />
            </button>
          </li>
        ))}
      </ul>
      {shown && <Lightbox image={shown} onClose={() => setOpen(null)} />}
    </>
  );
}

function Lightbox({ image, onClose }: { image: TurnImage; onClose: () => void }) {
  const closeButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    closeButton.current?.focus();
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  return (
    <div
      className="lightbox"
      role="dialog"
      aria-modal="true"
      aria-label="Image at full size"
      onClick={onClose}
    >
      <span onClick={(event) => event.stopPropagation()}>
        <Picture image={image} alt="At full size" />
      </span>
      <button ref={closeButton} type="button" className="lightbox-close" onClick={onClose}>
        Close
      </button>
    </div>
  );
}

/**
 * An image by reference or inline (renderer/src/images.ts). Main keeps referenced images within a budget
 * (main/image-refs.ts): one it has let go fails to load, and says so in place of a broken picture.
 */
function Picture({ image, alt }: { image: TurnImage; alt: string }) {
  const source = imageSource(image);
  const [failed, setFailed] = useState<string | null>(null);
  if (failed === source) {
    return (
      <span className="image-gone" role="img" aria-label={alt}>
        Image no longer available
      </span>
    );
  }
  return <img src={source} alt={alt} onError={() => setFailed(source)} />;
}

function AssistantMessageView({
  tabId,
  message,
  nextId,
}: {
  tabId: string;
  message: AssistantChatMessage;
  nextId: string | undefined;
}) {
  const forkFromHere = useStore((state) => state.forkFromHere);
  // Only after a turn's last reply: forking after a tool call would leave the call without its result.
  const endsTurn = useStore((state) => {
    const conversation = state.tabs[tabId]?.conversation;
    return !!conversation && conversation.messages[nextId ?? '']?.role !== 'assistant';
  });
  const forkable = !message.parentToolUseId && !message.streaming && !!message.uuid && endsTurn;
  // A stopped reply's marker is the turn's, just after it.
  const followedByResult = useStore(
    (state) => state.tabs[tabId]?.conversation.messages[nextId ?? '']?.role === 'result',
  );
  // With the host gone, nothing more of it is arriving: it is not shown as streaming.
  const streaming = useStore((state) => message.streaming && state.connected);
  return (
    <article
      className={`message message-assistant${message.parentToolUseId ? ' message-nested' : ''}`}
      aria-label={message.author}
      aria-busy={streaming}
    >
      <header className="author">
        {message.author}
        <span className="message-actions">
          <CopyButton
            text={() => replyOrCalls(tabId, message)}
            title="Copy this reply's text (as far as it has come)"
          />
        </span>
        <ShowProtocolLines tabId={tabId} message={message} />
        {forkable && (
          <MessageAction
            label="Fork from here"
            title="Carry on after this reply in a new branch"
            onClick={() => forkFromHere(tabId, message.id)}
          />
        )}
      </header>
      {message.parts.map((part, index) => {
        switch (part.kind) {
          case 'text':
            // The cursor of a reply still coming, after its last words only.
            return (
              <Markdown
                key={index}
                text={part.text}
                streaming={streaming && index === message.parts.length - 1}
              />
            );
          case 'thinking':
            return (
              <Thinking
                key={index}
                text={part.text}
                seconds={part.seconds}
                // Over once its line has come, a later part has begun, or the reply has ended.
                done={part.seconds !== undefined || index < message.parts.length - 1 || !streaming}
              />
            );
          case 'tool':
            return <ToolCallView key={part.toolUseId} tabId={tabId} toolUseId={part.toolUseId} />;
          case 'other':
            return (
              <p key={index} className="muted">
                [{part.label}]
              </p>
            );
        }
      })}
      {message.aborted && !followedByResult && <p className="muted">(stopped)</p>}
      {message.error && <ApiErrorHint text={message.error} />}
    </article>
  );
}

/** "Thought for 12 s", "Thought for 2 min 5 s"; under a second counts as one. */
export function thoughtFor(seconds: number | undefined): string {
  if (seconds === undefined) return 'Thought';
  const whole = Math.max(1, Math.round(seconds));
  if (whole < 60) return `Thought for ${whole} s`;
  const minutes = Math.floor(whole / 60);
  const rest = whole % 60;
  return `Thought for ${minutes} min${rest ? ` ${rest} s` : ''}`;
}

function Thinking({ text, seconds, done }: { text: string; seconds: number | undefined; done: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="thinking">
      <button
        type="button"
        className="link-button"
        aria-expanded={open}
        onClick={() => setOpen((value) => !value)}
      >
        {open ? 'Hide thinking' : done ? thoughtFor(seconds) : 'Thinking…'}
      </button>
      {open && <div className="thinking-text">{text || '(redacted)'}</div>}
    </div>
  );
}

const ToolCallView = memo(function ToolCallView({ tabId, toolUseId }: { tabId: string; toolUseId: string }) {
  const tool = useStore((state) => state.tabs[tabId]?.conversation.tools[toolUseId]);
  const held = useStore(useShallow((state) => requestsHeldBy(state.tabs[tabId]?.conversation, toolUseId)));
  // Only where the conversation runs: a saved one has nothing to stop.
  const live = useStore((state) => {
    const tab = state.tabs[tabId];
    return !!tab && liveConversationId(tab) !== null && tab.conversation.status !== 'exited';
  });
  if (!tool) return null;
  const own = held.filter((request) => request.toolUseId === toolUseId);
  const inside = held.filter((request) => request.toolUseId !== toolUseId);
  // A subagent can be stopped on its own, and so can anything in the background; the rest stop with the turn.
  const task = tool.task;
  const stoppable =
    live && task && taskRunning(task) && (task.backgrounded || tool.name === 'Agent' || tool.name === 'Task');
  if (INTERACTIVE_TOOLS.has(tool.name)) {
    const waiting = own.length > 0 ? <PermissionCards tabId={tabId} requests={own} /> : undefined;
    return <InteractiveToolCall tool={tool} waiting={waiting} />;
  }
  return (
    <ToolCard
      tool={tool}
      permission={own.length > 0 ? <PermissionCards tabId={tabId} requests={own} /> : undefined}
      heldInside={inside.length > 0 ? <PermissionCards tabId={tabId} requests={inside} /> : undefined}
      actions={stoppable ? <StopTaskButton tabId={tabId} taskId={task.taskId} /> : undefined}
    >
      {tool.children.length > 0 && (
        <div className="agent-messages">
          {tool.children.map((childId) => (
            <MessageView key={childId} tabId={tabId} id={childId} />
          ))}
        </div>
      )}
    </ToolCard>
  );
});

function ResultView({ message }: { message: ResultChatMessage }) {
  const figures = turnFigures(message);
  if (message.errorText === 'Stopped.') {
    // Stopped by the user: a plain marker, not an error.
    return (
      <div className="turn-result turn-stopped" role="note" aria-label="Turn stopped">
        <strong>Stopped.</strong>
        <span className="turn-figures"> {figures}</span>
      </div>
    );
  }
  if (message.ok) {
    return (
      <div className="turn-result" aria-label="Turn finished">
        {message.unsolicited ? 'Background work finished · ' : ''}
        {figures}
      </div>
    );
  }
  return (
    <div className="turn-result turn-error" role="alert">
      <strong>The turn failed.</strong> {message.errorText}
      <ApiErrorHint text={message.errorText ?? ''} status={message.apiErrorStatus} />
      <span className="turn-figures"> {figures}</span>
    </div>
  );
}

/** For errors that mean "not logged in", say how to log in. */
function ApiErrorHint({ text, status }: { text: string; status?: number | null }) {
  const auth = status === 401 || status === 403 || /auth|log ?in|api key|credential/i.test(text);
  if (!auth) return null;
  return (
    <p className="hint">
      Byre uses the Claude Code CLI&apos;s login. Run <code>claude</code> in a terminal and sign in (or set{' '}
      <code>ANTHROPIC_API_KEY</code> before starting Byre), then start a new conversation.
    </p>
  );
}
