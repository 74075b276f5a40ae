import { useShallow } from 'zustand/react/shallow';
import { backgroundTasks, type TaskCall } from '../../../shared/conversation';
import { useStore } from '../state/store';
import { Elapsed, toolLabel } from './ToolCard';

const NONE: readonly TaskCall[] = [];

/**
 * Above the composer, while subagents or shell commands run in the background: each one, how long it has
 * run, and Stop. A task leaves the list when it ends.
 */
export function BackgroundTasks({ tabId }: { tabId: string }) {
  const tools = useStore(
    useShallow((state) => {
      const conversation = state.tabs[tabId]?.conversation;
      return conversation ? backgroundTasks(conversation) : NONE;
    }),
  );
  const focusMessage = useStore((state) => state.focusMessage);
  if (tools.length === 0) return null;
  return (
    <section className="background-tasks" aria-label="Background tasks">
      <span className="background-tasks-title">Running in the background:</span>
      <ul>
        {tools.map((tool) => (
          <li key={tool.id} className="background-task" title={tool.task.progress ?? tool.task.description}>
            <button
              type="button"
              className="link-button background-task-name"
              title="Show its card in the conversation"
              onClick={() => focusMessage(tabId, tool.messageId)}
            >
              {taskName(tool)}
            </button>
            <Elapsed tool={tool} />
            {doingNow(tool) && <span className="background-task-now">{doingNow(tool)}</span>}
            <StopTaskButton tabId={tabId} taskId={tool.task.taskId} />
          </li>
        ))}
      </ul>
    </section>
  );
}

/** What a subagent is doing now, as its last progress report says; nothing for a shell command. */
function doingNow(tool: TaskCall): string | null {
  if (tool.name !== 'Agent' && tool.name !== 'Task') return null;
  const { progress, lastToolName } = tool.task;
  if (progress && progress !== tool.task.description)
    return lastToolName ? `${progress} (${lastToolName})` : progress;
  return lastToolName ? `using ${lastToolName}` : null;
}

/** A shell command by its command line; a subagent by its kind and what it was asked to do. */
function taskName(tool: TaskCall): string {
  const command = tool.input.command;
  if (tool.name === 'Bash' && typeof command === 'string' && command) return command;
  const description = tool.task.description;
  return tool.name === 'Agent' || tool.name === 'Task'
    ? `${toolLabel(tool)}: ${description}`
    : description || toolLabel(tool);
}

/** Stops a task that runs (`stop_task`); it says so until the task has ended. */
export function StopTaskButton({ tabId, taskId }: { tabId: string; taskId: string }) {
  const stopTask = useStore((state) => state.stopTask);
  const stopping = useStore((state) => state.tabs[tabId]?.stoppingTasks.includes(taskId) ?? false);
  return (
    <span className="task-stop">
      <button
        type="button"
        className="button-secondary button-small"
        disabled={stopping}
        onClick={() => void stopTask(tabId, taskId)}
      >
        Stop
      </button>
      {stopping && (
        <span className="task-stopping" role="status">
          Stopping…
        </span>
      )}
    </span>
  );
}
