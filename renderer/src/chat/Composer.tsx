import { useRef, type ClipboardEvent, type KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ConversationState } from '../../../shared/conversation';
import { imageSource } from '../images';
import { useStore } from '../store';

const ACCEPT = 'image/png,image/jpeg,image/gif,image/webp';

/**
 * The message box: Enter sends, Shift+Enter adds a line; Stop (or Escape, here or in the log) interrupts the
 * running turn, and the focus comes back here. Up in an empty box brings back the last message sent. Images come in
 * by the Attach button, by paste, or by a drop anywhere on the conversation, and wait here as thumbnails.
 */
/** The text of the last message the user sent in the conversation (not a subagent's prompt). */
function lastSent(conversation: ConversationState | undefined): string | null {
  if (!conversation) return null;
  for (let index = conversation.order.length - 1; index >= 0; index--) {
    const message = conversation.messages[conversation.order[index] ?? ''];
    if (message?.role === 'user' && message.author === 'You' && message.text) return message.text;
  }
  return null;
}

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
  const attachments = draft?.attachments ?? [];
  const refusals = draft?.refusals ?? [];
  const text = draft?.text ?? '';
  const input = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const usable = status === 'idle' || status === 'running';
  const preparing = attachments.some((attachment) => !attachment.image);
  const canSend = usable && !preparing && (text.trim().length > 0 || attachments.length > 0);

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
      <div className="composer-row">
        <textarea
          ref={input}
          aria-label="Message"
          placeholder={
            usable
              ? 'Message Claude… (Enter to send, Shift+Enter for a new line)'
              : 'This conversation has ended.'
          }
          value={text}
          rows={3}
          disabled={!usable}
          onChange={(event) => setDraftText(tabId, event.target.value)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          autoFocus
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
    </form>
  );
}
