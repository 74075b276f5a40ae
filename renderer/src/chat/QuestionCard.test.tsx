import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { PermissionRequest, ToolCall } from '../../../shared/conversation';
import type { Question } from '../../../shared/ipc';
import { InteractiveToolCall } from './InteractiveToolCall';
import { PermissionCards } from './PermissionCard';
import { PlanForm } from './PlanCard';
import { answerText } from './QuestionCard';

/** Question and plan cards as they render: their names, their fields, and the calls once answered. */

const QUESTIONS: Question[] = [
  {
    question: 'Which database should we use?',
    header: 'Database',
    options: [
      { label: 'SQLite', description: 'One file, no server' },
      { label: 'Postgres', description: 'A server', preview: 'docker run postgres' },
    ],
    multiSelect: false,
  },
  {
    question: 'Which features do you want?',
    header: 'Features',
    options: [
      { label: 'Search', description: 'Full text' },
      { label: 'Export', description: 'CSV' },
      { label: 'Sync', description: '' },
    ],
    multiSelect: true,
  },
];

const request = (requestId: string, toolName: string, interaction: PermissionRequest['interaction']) =>
  ({
    requestId,
    toolName,
    displayName: toolName,
    input: {},
    toolUseId: `toolu_${requestId}`,
    description: null,
    blockedPath: null,
    remember: null,
    interaction,
  }) satisfies PermissionRequest;

const render = (requests: PermissionRequest[]) =>
  renderToStaticMarkup(<PermissionCards tabId="c1" requests={requests} />);

function tool(name: string, input: Record<string, unknown>, result: ToolCall['result'] = null): ToolCall {
  return {
    id: 'toolu_1',
    messageId: 'm1',
    name,
    input,
    partialInput: '',
    status: result ? (result.isError ? 'error' : 'done') : 'running',
    result,
    startedAt: null,
    elapsedSeconds: null,
    task: null,
    children: [],
  };
}

describe('the question card', () => {
  it('is a group of questions, each named by its text with its header, options by label, Other, and the answers', () => {
    const html = render([request('r1', 'AskUserQuestion', { kind: 'questions', questions: QUESTIONS })]);
    expect(html).toContain('role="group" aria-label="Question from Claude"');
    expect(html).toContain('aria-label="Which database should we use?"');
    expect(html).toContain('aria-label="Which features do you want?"');
    expect(html).toContain('<span class="question-chip">Database</span>');
    // One choice: radio buttons; several: checkboxes; each named by its label alone, its description beside.
    expect(html.match(/type="radio"/g)).toHaveLength(2);
    expect(html.match(/type="checkbox"/g)).toHaveLength(3);
    expect(html).toMatch(/<span class="question-option-label" id="[^"]+">SQLite<\/span>/);
    expect(html).toContain('One file, no server');
    // The preview waits for its option to have the focus.
    expect(html).not.toContain('docker run postgres');
    expect(html.match(/>Other<\/label>/g)).toHaveLength(2);
    expect(html).toContain('>Send answers</button>');
    expect(html).toContain('>Skip</button>');
    expect(html).not.toContain('Permission request');
  });

  it('answers with a label, labels joined with ", " in the options’ order, or the Other text', () => {
    const [single, several] = QUESTIONS as [Question, Question];
    expect(answerText(single, { labels: ['Postgres'], other: '' })).toBe('Postgres');
    expect(answerText(single, { labels: [], other: ' Redis ' })).toBe('Redis');
    expect(answerText(single, undefined)).toBe('');
    expect(answerText(several, { labels: ['Export', 'Search'], other: '' })).toBe('Search, Export');
    expect(answerText(several, { labels: ['Sync'], other: 'Backups' })).toBe('Sync, Backups');
  });
});

describe('the plan card', () => {
  it('shows the plan from the tool call as Markdown, Approve plan with the mode chosen last, and Keep planning', () => {
    const html = renderToStaticMarkup(
      <PlanForm
        tabId="c1"
        request={request('r2', 'ExitPlanMode', { kind: 'plan', approveMode: 'acceptEdits' })}
        approveMode="acceptEdits"
        plan={'## Plan\n\n1. Do A'}
      />,
    );
    expect(html).toContain('role="group" aria-label="Plan from Claude"');
    expect(html).toContain('<h2>Plan</h2>');
    expect(html).toContain('<li>Do A</li>');
    expect(html).toContain('>Approve plan</button>');
    expect(html).toMatch(/<option value="acceptEdits" selected="">Accept edits<\/option>/);
    expect(html).toContain('>Ask before acting</option>');
    expect(html).toContain('>What to change</label>');
    expect(html).toContain('>Keep planning</button>');
  });
});

describe('the calls once answered', () => {
  it('AskUserQuestion shows what was asked and what was answered', () => {
    const html = renderToStaticMarkup(
      <InteractiveToolCall
        tool={tool(
          'AskUserQuestion',
          { questions: QUESTIONS },
          {
            text: 'User has answered…',
            isError: false,
            images: 0,
            outcome: { answers: { 'Which database should we use?': 'SQLite' } },
          },
        )}
      />,
    );
    expect(html).toContain('aria-label="Questions from Claude"');
    expect(html).toContain('Which database should we use?</dt><dd>SQLite</dd>');
    expect(html).toContain('Which features do you want?</dt><dd>No answer</dd>');
  });

  it('a skipped question, or an answer from a file without them, shows what Claude was told', () => {
    const html = renderToStaticMarkup(
      <InteractiveToolCall
        tool={tool(
          'AskUserQuestion',
          { questions: QUESTIONS },
          { text: 'The user skipped these questions.', isError: true, images: 0 },
        )}
      />,
    );
    expect(html).toContain('The user skipped these questions.');
  });

  it('ExitPlanMode shows the plan, what became of it, and where the CLI kept it', () => {
    const approved = renderToStaticMarkup(
      <InteractiveToolCall
        tool={tool(
          'ExitPlanMode',
          { plan: '1. Do A' },
          {
            text: 'User has approved',
            isError: false,
            images: 0,
            outcome: { planFile: '/h/.claude/plans/p.md' },
          },
        )}
      />,
    );
    expect(approved).toContain('<li>Do A</li>');
    expect(approved).toContain(' · approved');
    expect(approved).toContain('/h/.claude/plans/p.md');
    const kept = renderToStaticMarkup(
      <InteractiveToolCall
        tool={tool('ExitPlanMode', { plan: '1. Do A' }, { text: 'Add step C', isError: true, images: 0 })}
      />,
    );
    expect(kept).toContain('Keep planning: Add step C');
  });

  it('EnterPlanMode is a marker, not a tool card', () => {
    const html = renderToStaticMarkup(<InteractiveToolCall tool={tool('EnterPlanMode', {})} />);
    expect(html).toContain('role="note">Entered plan mode</div>');
    expect(html).not.toContain('tool-card');
  });
});
