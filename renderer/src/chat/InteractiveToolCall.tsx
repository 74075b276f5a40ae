import type { ReactNode } from 'react';
import { planOf, questionsOf, type ToolCall } from '../../../shared/conversation';
import { Markdown } from './Markdown';

/**
 * The tool calls that are Claude talking to the user, not acting: AskUserQuestion shows what was asked and
 * what was answered, ExitPlanMode the plan and what became of it, EnterPlanMode a marker. While one waits,
 * its card (QuestionCard, PlanCard) is shown in its place. Saved conversations show the same, from the
 * call's input and its result (`tool_use_result`, when the CLI wrote it).
 */

export function InteractiveToolCall({ tool, waiting }: { tool: ToolCall; waiting?: ReactNode }) {
  switch (tool.name) {
    case 'EnterPlanMode':
      return (
        <>
          <div className="plan-mode-marker" role="note">
            Entered plan mode
          </div>
          {waiting}
        </>
      );
    case 'AskUserQuestion':
      return (
        <section className="interaction-call" aria-label="Questions from Claude" data-tool={tool.name}>
          {waiting ?? <AskedAndAnswered tool={tool} />}
        </section>
      );
    default:
      return (
        <section
          className="interaction-call"
          aria-label="Plan from Claude, as proposed"
          data-tool={tool.name}
        >
          {waiting ?? <ProposedPlan tool={tool} />}
        </section>
      );
  }
}

/** Where a call stands when no card waits for it: still running, or ended without a result. */
function pending(tool: ToolCall): string | null {
  if (tool.result) return null;
  if (tool.status === 'interrupted') return 'Stopped before an answer.';
  if (tool.status === 'error') return 'Ended without an answer.';
  return tool.status === 'running' ? 'Waiting…' : 'No answer was recorded.';
}

function AskedAndAnswered({ tool }: { tool: ToolCall }) {
  const questions = questionsOf(tool);
  const answers = tool.result?.outcome?.answers;
  const status = pending(tool);
  return (
    <>
      <p className="interaction-title">
        <strong>Claude asked</strong>
      </p>
      <dl className="asked-answered">
        {questions.map((question, index) => {
          const answer =
            answers && Object.hasOwn(answers, question.question) ? answers[question.question] : null;
          return (
            <div key={`${index}:${question.question}`} className="asked">
              <dt>
                {question.header && <span className="question-chip">{question.header}</span>}
                {question.question}
              </dt>
              <dd>{answer ?? (answers ? 'No answer' : '')}</dd>
            </div>
          );
        })}
      </dl>
      {/* Without the answers by question (an older file, a skip), what Claude was told says it. */}
      {tool.result && !answers && <p className="interaction-result">{tool.result.text}</p>}
      {status && <p className="interaction-result">{status}</p>}
    </>
  );
}

function ProposedPlan({ tool }: { tool: ToolCall }) {
  const plan = planOf(tool);
  const file = tool.result?.outcome?.planFile;
  const status = pending(tool);
  return (
    <>
      <p className="interaction-title">
        <strong>Claude&rsquo;s plan</strong>
        {tool.result && (tool.result.isError ? ' · not approved' : ' · approved')}
      </p>
      <div className="plan-text">
        {plan ? <Markdown text={plan} /> : <p>The plan is not in the tool call.</p>}
      </div>
      {/* Keeping on planning: what the user asked to change, as Claude got it. */}
      {tool.result?.isError && <p className="interaction-result">Keep planning: {tool.result.text}</p>}
      {file && (
        <p className="interaction-result">
          Kept as <code className="file-path">{file}</code>
        </p>
      )}
      {status && <p className="interaction-result">{status}</p>}
    </>
  );
}
