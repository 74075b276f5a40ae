import { useId, useState } from 'react';
import {
  compactLabel,
  type CliItem,
  type CommandOutput,
  type CompactMarker,
  type HookRun,
  type PermissionDenial,
} from '../../../shared/conversation';
import { Markdown } from './Markdown';

/**
 * The CLI's own items in the conversation (shared/conversation/cli-items.ts): a hook's run as one folded
 * line, the marker where the conversation was compacted, and a local slash command's output under the
 * command. Also the note a tool card shows when the CLI denied its call by itself.
 */
export function CliItemView({ item }: { item: CliItem }) {
  switch (item.kind) {
    case 'hook':
      return <HookRunView run={item} />;
    case 'compact':
      return <CompactMarkerView marker={item} />;
    case 'command_output':
      return <CommandOutputView output={item} />;
  }
}

/** One line per hook run: name, event and outcome; what it wrote on expand. */
function HookRunView({ run }: { run: HookRun }) {
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  const failed = run.outcome === 'error' || (run.exitCode !== null && run.exitCode !== 0);
  const outcome =
    run.outcome === 'running'
      ? 'running…'
      : run.exitCode !== null && run.exitCode !== 0
        ? `${run.outcome} (exit ${run.exitCode})`
        : run.outcome;
  // "PreToolUse:Bash" already says its event; "UserPromptSubmit" is its own event.
  const event =
    run.event && run.event !== run.name && !run.name.startsWith(`${run.event}:`) ? run.event : null;
  const output = run.output.trim();
  return (
    <div
      className={`cli-hook${failed ? ' cli-hook-failed' : ''}`}
      role="group"
      aria-label={`${run.name} hook`}
    >
      <button
        type="button"
        className="cli-hook-line"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen((value) => !value)}
      >
        <span aria-hidden="true">{open ? '▾' : '▸'}</span> Hook{' '}
        <span className="cli-hook-name">{run.name}</span>
        {event && <span className="cli-hook-event"> · {event}</span>}
        <span className="cli-hook-outcome"> · {outcome}</span>
      </button>
      {open && (
        <pre className="cli-hook-output" id={bodyId}>
          {output || '(no output)'}
        </pre>
      )}
    </div>
  );
}

/** "Conversation compacted (auto · 162k → 9k tokens)", with the summary Claude goes on from on expand. */
function CompactMarkerView({ marker }: { marker: CompactMarker }) {
  const label = compactLabel(marker);
  return (
    <div className="cli-compact" role="note" aria-label={label}>
      <div className="cli-compact-line">
        <span>{label}</span>
      </div>
      {marker.summary && (
        <details className="cli-compact-summary">
          <summary>Summary Claude goes on from</summary>
          <pre>{marker.summary}</pre>
        </details>
      )}
    </div>
  );
}

/** What a local slash command printed, as Markdown (the CLI writes its tables and headings that way). */
function CommandOutputView({ output }: { output: CommandOutput }) {
  const name = output.command ? `Output of ${output.command}` : 'Command output';
  return (
    <section className="cli-command-output" aria-label={name}>
      <div className="cli-command-output-label">{name}</div>
      <div className="cli-command-output-body">
        <Markdown text={output.text} />
      </div>
    </section>
  );
}

/**
 * At a tool call the CLI denied by itself: by what, and what Claude was told, unless the call's result
 * (`result`, shown below it) says that already.
 */
export function DeniedNote({ denial, result }: { denial: PermissionDenial; result?: string }) {
  const told = result?.trim() === denial.message.trim() ? '' : `: ${denial.message}`;
  return (
    <p className="cli-denied" role="note">
      Denied by {denial.by}
      {denial.reason ? ` (${denial.reason})` : ''}
      {told || '.'}
    </p>
  );
}
