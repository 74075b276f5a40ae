import { setupWaitNote } from './SetupCard';
import { useEffect, useLayoutEffect, useRef, useState, type ClipboardEvent, type KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ConversationState } from '../../../shared/conversation';
import { imageSource } from '../host/images';
import { liveConversationId } from '../state/selectors';
import { useStore } from '../state/store';
import { useCompletion } from './Completions';
import { usePromptSuggestion } from './PromptSuggestion';
import { insertPastedText } from './paste-text';
import { holdsInput } from '../ui/focus';

const ACCEPT = 'image/png,image/jpeg,image/gif,image/webp';

/** The text of the last message the user sent in the conversation (not a subagent's prompt). */
function lastSent(conversation: ConversationState | undefined): string | null {
  if (!conversation) return null;
  for (let index = conversation.order.length - 1; index >= 0; index--) {
    const message = conversation.messages[conversation.order[index] ?? ''];
    if (message?.role === 'user' && message.author === 'You' && message.text) return message.text;
  }
  return null;
}

const NO_COMMANDS: never[] = [];

/**
 * The message box: Enter sends, Shift+Enter adds a line; Stop (or Escape, here or in the log) interrupts the
 * running turn, and the focus comes back here. Up in an empty box brings back the last message sent. `/` at the
 * start lists the slash commands and `@` the folder's files (Completions.tsx). Images come in by the Attach
 * button, by paste, or by a drop anywhere on the conversation, and wait here as thumbnails.
 */
export function Composer({ tabId }: { tabId: string }) {
  const status = useStore((state) => state.tabs[tabId]?.conversation.status);
  const { send, interrupt, attachFiles, removeAttachment, dismissRefusals, setDraftText } = useStore(
    useShallow((state) => ({
      send: state.send,
      setDraftText: state.setDraftText,
      interrupt: state.interrupt,
      attachFiles: state.attachFiles,
      removeAttachment: state.removeAttachment,
      dismissRefusals: state.dismissRefusals,
    })),
  );
  const draft = useStore((state) => state.drafts[tabId]);
  const setupNote = useStore((state) => setupWaitNote(state.tabs[tabId]?.conversation.setup ?? null));
  const attachments = draft?.attachments ?? [];
  const refusals = draft?.refusals ?? [];
  const text = draft?.text ?? '';
  const input = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  // Ready to be written in as it appears, unless the user is writing elsewhere (the library's search box,
  // say, while the launch folder's conversation starts): the keys they are typing stay there.
  useEffect(() => {
    if (!holdsInput(document.activeElement)) input.current?.focus();
  }, []);
  const usable = status === 'idle' || status === 'running';
  const preparing = attachments.some((attachment) => !attachment.image);
  // Sending while an image is still being checked sends it once that is done (the store waits).
  const canSend = usable && !draft?.sendWhenReady && (text.trim().length > 0 || attachments.length > 0);

  const conversationId = useStore((state) => {
    const tab = state.tabs[tabId];
    return tab && !tab.starting ? liveConversationId(tab) : null;
  });
  const commands = useStore((state) => state.tabs[tabId]?.conversation.commands ?? NO_COMMANDS);
  const [caret, setCaret] = useState(0);
  const [focused, setFocused] = useState(false);
  // Where the caret goes once a chosen completion is in the text.
  const placeCaret = useRef<number | null>(null);
  useLayoutEffect(() => {
    const at = placeCaret.current;
    if (at === null || !input.current) return;
    placeCaret.current = null;
    input.current.setSelectionRange(at, at);
    setCaret(at);
  }, [text]);
  const completion = useCompletion({
    conversationId: usable ? conversationId : null,
    commands,
    text,
    caret,
    focused: focused && usable,
    replace: (start, end, insert) => {
      placeCaret.current = start + insert.length;
      setDraftText(tabId, text.slice(0, start) + insert + text.slice(end));
    },
  });

  const suggestion = usePromptSuggestion(tabId, text, (taken) => {
    placeCaret.current = taken.length;
    setDraftText(tabId, taken);
  });

  const submit = async () => {
    if (!canSend) return;
    // The store clears the draft, and puts it back if the message could not be sent.
    await send(tabId);
    input.current?.focus();
  };

  const stop = async () => {
    input.current?.focus();
    await interrupt(tabId);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (completion.onKeyDown(event) || (usable && suggestion.onKeyDown(event))) {
      event.preventDefault();
      return;
    }
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void submit();
    } else if (event.key === 'Escape' && status === 'running' && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void stop();
    } else if (
      event.key === 'ArrowUp' &&
      text === '' &&
      attachments.length === 0 &&
      !event.altKey &&
      !event.nativeEvent.isComposing
    ) {
      // In an empty box, the last message sent comes back to be sent again or changed.
      const last = lastSent(useStore.getState().tabs[tabId]?.conversation);
      if (!last) return;
      event.preventDefault();
      setDraftText(tabId, last);
    }
  };

  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = [...event.clipboardData.files];
    if (files.length === 0) return;
    event.preventDefault();
    insertPastedText(event.currentTarget, event.clipboardData.getData('text/plain'));
    void attachFiles(tabId, files);
  };

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      {refusals.length > 0 && (
        <div className="refusals" role="alert">
          <ul>
            {refusals.map((refusal, index) => (
              <li key={index}>{refusal}</li>
            ))}
          </ul>
          <button type="button" className="link-button" onClick={() => dismissRefusals(tabId)}>
            Dismiss
          </button>
        </div>
      )}
      {attachments.length > 0 && (
        <ul className="attachments" aria-label="Attached images">
          {attachments.map((attachment) => (
            <li key={attachment.id} className="attachment">
              {attachment.image ? (
                <img
                  src={imageSource(attachment.image)}
                  alt={attachment.name}
                  title={
                    attachment.image.resized
                      ? `${attachment.name}: scaled from ${attachment.image.originalWidth}×${attachment.image.originalHeight} to ${attachment.image.width}×${attachment.image.height}`
                      : attachment.name
                  }
                />
              ) : (
                <span className="attachment-pending" role="status">
                  Checking {attachment.name}…
                </span>
              )}
              <button
                type="button"
                className="attachment-remove"
                aria-label={`Remove ${attachment.name}`}
                onClick={() => removeAttachment(tabId, attachment.id)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {setupNote && (
        <p className="composer-waiting" role="status">
          {setupNote}
        </p>
      )}
      {preparing && draft?.sendWhenReady && (
        <p className="composer-waiting" role="status">
          Sends once the images are checked.
        </p>
      )}
      <div className="composer-row">
        {completion.menu}
        <textarea
          ref={input}
          aria-label="Message"
          placeholder={
            usable
              ? (suggestion.placeholder ?? 'Message Claude… (Enter to send, Shift+Enter for a new line)')
              : 'This conversation has ended.'
          }
          value={text}
          rows={3}
          disabled={!usable}
          onChange={(event) => {
            setDraftText(tabId, event.target.value);
            setCaret(event.target.selectionStart);
          }}
          onSelect={(event) => setCaret(event.currentTarget.selectionStart)}
          onFocus={() => setFocused(true)}
          onBlur={() => setFocused(false)}
          {...completion.inputProps}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
        />
        <div className="composer-actions">
          <input
            ref={picker}
            type="file"
            accept={ACCEPT}
            multiple
            hidden
            data-testid="image-picker"
            onChange={(event) => {
              const files = [...(event.target.files ?? [])];
              event.target.value = '';
              if (files.length > 0) void attachFiles(tabId, files);
            }}
          />
          <button
            type="button"
            className="button-secondary"
            disabled={!usable}
            onClick={() => picker.current?.click()}
          >
            Attach image
          </button>
          {/* Stop comes in beside Send, so the box keeps its height when a reply starts. */}
          <div className="composer-send">
            {status === 'running' && (
              <button
                type="button"
                className="button-secondary"
                title="Stop the reply (Escape)"
                onClick={() => void stop()}
              >
                Stop
              </button>
            )}
            <button type="submit" className="button-primary" disabled={!canSend}>
              Send
            </button>
          </div>
        </div>
      </div>
    </form>
  );
}
