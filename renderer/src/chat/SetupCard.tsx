/**
 * A new worktree's setup command (Settings' "Run in each new worktree"), as its card in the conversation:
 * drawn as the "Done when" check's is (RunCard), with "Run again" and "Go on without it" once it failed,
 * since the first message waits for it. The composer's note says the same while it runs or failed.
 */
import type { SetupRun } from '../../../shared/ipc';
import { useStore } from '../state/store';
import { RunCard } from './DoneWhen';

const VERDICTS: Record<SetupRun['status'], string> = {
  running: 'Running',
  passed: 'Passed',
  failed: 'Failed',
  stopped: 'Stopped',
  skipped: 'Skipped',
};

export function SetupCard({ setup, tabId }: { setup: SetupRun; tabId: string }) {
  const setupAction = useStore((state) => state.setupAction);
  // A run that was tried again is history: only the latest one waits for an answer.
  const latest = useStore((state) => {
    const tab = state.tabs[tabId];
    return !!tab && !tab.saved && tab.conversation.setup?.id === setup.id;
  });
  return (
    <SetupCardView setup={setup} answerable={latest} onAction={(action) => void setupAction(tabId, action)} />
  );
}

export function SetupCardView(props: {
  setup: SetupRun;
  /** It is the conversation's latest run, in a live tab: a failed one waits for the user. */
  answerable: boolean;
  onAction(action: 'retry' | 'skip'): void;
}) {
  const { setup, answerable, onAction } = props;
  return (
    <RunCard
      name="Setup"
      className={`check-card setup-card check-${setup.status === 'skipped' ? 'stopped' : setup.status}`}
      verdict={VERDICTS[setup.status]}
      run={setup}
    >
      {setup.status !== 'running' && (
        <p className="check-summary">
          {setup.summary}
          {setup.status === 'skipped' && ': going on without it.'}
        </p>
      )}
      {setup.status === 'failed' && answerable && (
        <div className="setup-actions">
          <button type="button" className="button-secondary button-small" onClick={() => onAction('retry')}>
            Run again
          </button>
          <button type="button" className="button-secondary button-small" onClick={() => onAction('skip')}>
            Go on without it
          </button>
        </div>
      )}
    </RunCard>
  );
}

/** What the composer says while messages wait for the setup command; null when they do not. */
export function setupWaitNote(setup: SetupRun | null): string | null {
  if (setup?.status === 'running') return `Messages wait for the setup command (${setup.command}) to finish.`;
  if (setup?.status === 'failed')
    return 'The setup command failed: messages wait until you run it again or go on without it.';
  return null;
}
