import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { SetupRun } from '../../../shared/ipc';
import { SetupCardView, setupWaitNote } from './SetupCard';

/**
 * A new worktree's setup card: a group named "Setup" with the command, how it stands, its time and output;
 * a failed latest run offers "Run again" and "Go on without it"; the composer says messages wait for it.
 */

const run = (patch: Partial<SetupRun> = {}): SetupRun => ({
  id: 'r1',
  command: 'npm ci',
  startedAt: 0,
  status: 'failed',
  summary: 'exit 1',
  durationMs: 2_500,
  output: 'npm ERR! missing lockfile',
  outputTruncated: false,
  ...patch,
});

const none = () => undefined;
const card = (setup: SetupRun, answerable = true) =>
  renderToStaticMarkup(<SetupCardView setup={setup} answerable={answerable} onAction={none} />);

describe('the setup card', () => {
  it('shows the command, its verdict, time and output in a group named Setup', () => {
    const html = card(run());
    expect(html).toContain('role="group" aria-label="Setup"');
    expect(html).toContain('<code class="check-command">npm ci</code>');
    expect(html).toContain('Failed');
    expect(html).toContain('2.5 s');
    expect(html).toContain('exit 1');
    expect(html).toContain('npm ERR! missing lockfile');
    expect(html).toContain('Run again');
    expect(html).toContain('Go on without it');
  });

  it('offers no answer on a run that was tried again since, nor on one that passed', () => {
    expect(card(run(), false)).not.toContain('Run again');
    const passed = card(run({ status: 'passed', summary: 'exit 0' }));
    expect(passed).toContain('Passed');
    expect(passed).not.toContain('Run again');
  });

  it('has the composer say messages wait while it runs or after it failed', () => {
    expect(setupWaitNote(run({ status: 'running' }))).toBe(
      'Messages wait for the setup command (npm ci) to finish.',
    );
    expect(setupWaitNote(run())).toContain('messages wait until you run it again or go on without it');
    expect(setupWaitNote(run({ status: 'skipped' }))).toBeNull();
    expect(setupWaitNote(null)).toBeNull();
  });
});
