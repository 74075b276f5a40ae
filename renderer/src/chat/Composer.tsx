import { useRef, useState, type KeyboardEvent } from 'react';
import { useStore } from '../store';

/** The message box: Enter sends, Shift+Enter adds a line; Stop interrupts the running turn. */
export function Composer({ tabId }: { tabId: string }) {
  const status = useStore((state) => state.tabs[tabId]?.conversation.status);
  const send = useStore((state) => state.send);
  const interrupt = useStore((state) => state.interrupt);
  const [text, setText] = useState('');
  const input = useRef<HTMLTextAreaElement>(null);
  const usable = status === 'idle' || status === 'running';

  const submit = async () => {
    const message = text.trim();
    if (!message || !usable) return;
    setText('');
    const sent = await send(tabId, message);
    // Nothing typed is lost: a message that could not be sent comes back into the box.
    if (!sent) setText((current) => (current ? current : message));
    input.current?.focus();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void submit();
    }
  };

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
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
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
        autoFocus
      />
      <div className="composer-actions">
        {status === 'running' && (
          <button type="button" className="button-secondary" onClick={() => void interrupt(tabId)}>
            Stop
          </button>
        )}
        <button type="submit" className="button-primary" disabled={!usable || text.trim().length === 0}>
          Send
        </button>
      </div>
    </form>
  );
}
