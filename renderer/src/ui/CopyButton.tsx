import { useEffect, useState } from 'react';

/** How long "Copied" (or why it failed) shows beside the button. */
const SAID_MS = 1_500;

/**
 * A button that puts `text()` on the clipboard and says so beside it for a moment. The text is read when
 * clicked, so a code block copies what it shows then.
 */
export function CopyButton(props: {
  text: () => string;
  label?: string;
  title?: string;
  className?: string;
}) {
  const { text, label = 'Copy', title, className = 'link-button' } = props;
  const [said, setSaid] = useState<string | null>(null);
  useEffect(() => {
    if (said === null) return;
    const timer = window.setTimeout(() => setSaid(null), SAID_MS);
    return () => window.clearTimeout(timer);
  }, [said]);
  return (
    <span className="copy">
      <button
        type="button"
        className={className}
        title={title}
        onClick={() => {
          setSaid(null);
          // A page without the clipboard (or a text that cannot be read) says so, like a refused write.
          Promise.resolve()
            .then(() => navigator.clipboard.writeText(text()))
            .then(
              () => setSaid('Copied'),
              () => setSaid('Could not copy'),
            );
        }}
      >
        {label}
      </button>
      <span className="copy-said" role="status">
        {said}
      </span>
    </span>
  );
}
