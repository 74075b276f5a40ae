import type { TrustItem } from '../../../shared/ipc';
import { useModalDialog } from '../ui/popover';
import { useStore } from '../state/store';

/**
 * "Trust this folder?": what the folder carries that Claude Code would take as its own, grouped (its settings
 * with each hook's command, MCP server and allow rule; the scripts its hooks run; its agents with their
 * hooks; its skills and commands with the tools they allow; output styles; what CLAUDE.md tells Claude),
 * asked before any CLI starts there. Escape or closing it opens the folder restricted: it never means trust.
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
            <p>What it carries changed since you trusted it.</p>
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
            : 'It carries its own settings, agents, skills or instructions: trusted, Claude Code would use them, run what they run, and do more without asking'}
          :
        </p>
        <TrustItems items={question.items} />
      </div>
      <p className="muted">
        Trust only a folder whose files you know. Restricted, none of this is used, and your own settings
        still apply.
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
  script: 'Script',
  instructions: 'Instructions',
  agent: 'Agent',
  skill: 'Skill',
  command: 'Command',
  outputStyle: 'Output style',
  gitProgram: 'Git runs',
};

/** The groups of the question, in order, by what a file's first item is. */
const SETTINGS_GROUP = 'Settings and MCP servers';
const GROUPS: readonly { name: string; kinds: readonly TrustItem['kind'][] }[] = [
  { name: SETTINGS_GROUP, kinds: [] },
  { name: 'Agents', kinds: ['agent'] },
  { name: 'Skills', kinds: ['skill'] },
  { name: 'Commands', kinds: ['command'] },
  { name: 'Scripts its hooks run', kinds: ['script'] },
  { name: 'Output styles', kinds: ['outputStyle'] },
  { name: 'Programs its git config names', kinds: ['gitProgram'] },
  { name: 'Instructions for Claude', kinds: ['instructions'] },
];

function groupOf(list: readonly TrustItem[]): string {
  const kind = list[0]?.kind;
  return GROUPS.find((group) => kind && group.kinds.includes(kind))?.name ?? SETTINGS_GROUP;
}

function TrustItems({ items }: { items: TrustItem[] }) {
  const byFile = new Map<string, TrustItem[]>();
  for (const item of items) byFile.set(item.file, [...(byFile.get(item.file) ?? []), item]);
  const files = [...byFile];
  return (
    <div className="trust-items">
      {GROUPS.map(({ name }) => {
        const inGroup = files.filter(([, list]) => groupOf(list) === name);
        if (inGroup.length === 0) return null;
        return (
          <section key={name} aria-label={name} className="trust-group">
            <h3>{name}</h3>
            {inGroup.map(([file, list]) => (
              <section key={file} aria-label={file}>
                <h4>{file}</h4>
                <ul>
                  {list.map((item, index) => (
                    <li key={index}>
                      <span className="trust-kind">{KIND_LABEL[item.kind]}</span> <code>{item.text}</code>
                    </li>
                  ))}
                </ul>
              </section>
            ))}
          </section>
        );
      })}
    </div>
  );
}
