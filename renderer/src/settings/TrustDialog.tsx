import type { TrustItem } from '../../../shared/ipc';
import { useModalDialog } from '../ui/popover';
import { useStore } from '../state/store';

/**
 * "Trust this folder?": what the folder's own settings would do (each hook's command, each MCP server's
 * command line, each allow rule, the environment variables it sets, its helper commands), asked before any
 * CLI starts there. Escape or closing it opens the folder without its settings: it never means trust.
 */
export function TrustDialog() {
  const question = useStore((state) => state.trustQuestion);
  const answerTrust = useStore((state) => state.answerTrust);
  if (!question) return null;
  return <TrustQuestion key={question.digest} question={question} answer={answerTrust} />;
}

function TrustQuestion({
  question,
  answer,
}: {
  question: NonNullable<ReturnType<typeof useStore.getState>['trustQuestion']>;
  answer: (trust: boolean) => void;
}) {
  const dialog = useModalDialog();
  const { changed } = question;
  return (
    <dialog
      ref={dialog}
      className="confirm-dialog trust-dialog"
      aria-labelledby="trust-title"
      aria-describedby="trust-what"
      onCancel={(event) => {
        event.preventDefault();
        answer(false);
      }}
    >
      <h2 id="trust-title">Trust this folder?</h2>
      <p
        className="trust-folder"
        title={question.host ? `${question.folder} on ${question.host}` : question.folder}
      >
        {question.folder}
        {question.host && <span className="trust-host"> on {question.host}</span>}
      </p>
      <div id="trust-what">
        {changed && (
          <>
            <p>Its settings changed since you trusted it.</p>
            {changed.added.length > 0 && (
              <>
                <p className="muted">New:</p>
                <TrustItems items={changed.added} />
              </>
            )}
            {changed.removed.length > 0 && (
              <>
                <p className="muted">No longer:</p>
                <TrustItems items={changed.removed} />
              </>
            )}
          </>
        )}
        <p>
          {changed
            ? 'All it would do now'
            : 'Its own settings would let Claude Code run these, or do more without asking'}
          :
        </p>
        <TrustItems items={question.items} />
      </div>
      <p className="muted">
        Trust only a folder whose files you know. Without its settings, your own settings still apply.
      </p>
      <div className="dialog-actions">
        <button type="button" className="button-secondary" onClick={() => answer(false)} autoFocus>
          Open without its settings
        </button>
        <button type="button" className="button-danger" onClick={() => answer(true)}>
          Trust
        </button>
      </div>
    </dialog>
  );
}

const KIND_LABEL: Record<TrustItem['kind'], string> = {
  hook: 'Hook',
  mcpServer: 'MCP server',
  allowRule: 'Allow rule',
  askRule: 'Ask rule',
  directory: 'Folder',
  defaultMode: 'Mode',
  env: 'Environment',
  helper: 'Helper command',
  plugin: 'Plugin',
  setting: 'Setting',
  unreadable: 'Unreadable',
};

function TrustItems({ items }: { items: TrustItem[] }) {
  const byFile = new Map<string, TrustItem[]>();
  for (const item of items) byFile.set(item.file, [...(byFile.get(item.file) ?? []), item]);
  return (
    <div className="trust-items">
      {[...byFile].map(([file, list]) => (
        <section key={file} aria-label={file}>
          <h3>{file}</h3>
          <ul>
            {list.map((item, index) => (
              <li key={index}>
                <span className="trust-kind">{KIND_LABEL[item.kind]}</span> <code>{item.text}</code>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
