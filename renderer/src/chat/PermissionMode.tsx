import { useState } from 'react';
import { TriangleAlert } from 'lucide-react';
import { PermissionModeChoice } from '../../../shared/ipc/app';
import { useStore } from '../state/store';

/** The permission modes in the user's words, and what each lets Claude do. */
const MODES: Record<PermissionModeChoice, { label: string; description: string }> = {
  default: {
    label: 'Ask before acting',
    description: 'Claude asks before it edits files, runs commands or uses other tools.',
  },
  acceptEdits: {
    label: 'Accept edits',
    description: 'Claude edits files without asking, and asks before anything else.',
  },
  plan: { label: 'Plan only', description: 'Claude reads and plans, and changes nothing.' },
  bypassPermissions: {
    label: "Don't ask",
    description: 'Claude runs every tool without asking, commands and edits included.',
  },
};

export function permissionModeDescription(mode: PermissionModeChoice): string {
  return MODES[mode].description;
}

/** The options of a permission mode `<select>`, in the order of the contract. */
export function PermissionModeOptions() {
  return (
    <>
      {PermissionModeChoice.options.map((mode) => (
        <option key={mode} value={mode}>
          {MODES[mode].label}
        </option>
      ))}
    </>
  );
}

/**
 * The conversation's permission mode, in its header. A change shows at once and stays unless it fails; while
 * Claude runs tools without asking, a warning says so.
 */
export function PermissionModePicker({ tabId }: { tabId: string }) {
  const mode = useStore((state) => state.tabs[tabId]?.conversation.permissionMode ?? 'default');
  const exited = useStore((state) => state.tabs[tabId]?.conversation.status === 'exited');
  const setPermissionMode = useStore((state) => state.setPermissionMode);
  // The mode asked for, until the conversation's own mode changes (or the change fails).
  const [asked, setAsked] = useState<PermissionModeChoice | null>(null);
  const [seen, setSeen] = useState(mode);
  if (seen !== mode) {
    setSeen(mode);
    setAsked(null);
  }
  const shown = asked ?? mode;
  return (
    <>
      {shown === 'bypassPermissions' && (
        // An icon in the header, whose picker already says "Don't ask"; the whole warning is its tooltip.
        <span
          className="badge badge-warning header-warning"
          role="note"
          title="Don't ask: Claude runs tools without asking"
        >
          <TriangleAlert aria-hidden="true" size={14} />
          <span className="sr-only">Don&apos;t ask: Claude runs tools without asking</span>
        </span>
      )}
      <label className="model-picker">
        <span className="sr-only">Permission mode</span>
        <select
          aria-label="Permission mode"
          title={MODES[shown].description}
          value={shown}
          disabled={exited}
          onChange={(event) => {
            const next = PermissionModeChoice.parse(event.target.value);
            setAsked(next);
            void setPermissionMode(tabId, next).then((changed) => {
              if (!changed) setAsked(null);
            });
          }}
        >
          <PermissionModeOptions />
        </select>
      </label>
    </>
  );
}
