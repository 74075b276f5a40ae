/**
 * Claude's task list from its newer task tools (TaskCreate, TaskUpdate, TaskList; TaskGet only reads): the
 * same checklist TodoWrite's list makes, built from the calls one by one, since each call changes one task
 * and only TaskCreate's result says which id the new task got. Input and result shapes are the pinned CLI's
 * (sdk-tools.d.ts), the lines as it sends them (recorded with CLAUDE_CODE_ENABLE_TODO_TOOLS=1).
 */
import { z } from 'zod';
import type { Todo } from './todos';

export interface TaskItem {
  id: string;
  subject: string;
  description: string;
  status: Todo['status'];
  activeForm: string | null;
}

export const TASK_TOOLS: ReadonlySet<string> = new Set(['TaskCreate', 'TaskUpdate', 'TaskList', 'TaskGet']);

const TaskStatus = z.enum(['pending', 'in_progress', 'completed']);
const TaskCreateInput = z.looseObject({
  subject: z.string(),
  description: z.string().optional(),
  activeForm: z.string().optional(),
});
const TaskCreateOutput = z.looseObject({
  task: z.looseObject({ id: z.string(), subject: z.string().optional(), description: z.string().optional() }),
});
const TaskUpdateInput = z.looseObject({
  taskId: z.string(),
  subject: z.string().optional(),
  description: z.string().optional(),
  activeForm: z.string().optional(),
  status: z.union([TaskStatus, z.literal('deleted')]).optional(),
});
const TaskListOutput = z.looseObject({
  tasks: z.array(z.looseObject({ id: z.string(), subject: z.string(), status: TaskStatus })),
});
/** "Task #1 created successfully: Write parser": the id when the structured result is missing. */
const CREATED = /^Task #(\S+) created/;

/** The list after a TaskCreate call's result: the new task with the id the CLI gave it. */
export function afterTaskCreate(
  list: readonly TaskItem[],
  input: Record<string, unknown>,
  result: unknown,
  resultText: string,
): readonly TaskItem[] {
  const created = TaskCreateInput.safeParse(input);
  if (!created.success) return list;
  const output = TaskCreateOutput.safeParse(result);
  const id = output.success ? output.data.task.id : CREATED.exec(resultText)?.[1];
  if (!id) return list;
  const item: TaskItem = {
    id,
    subject: created.data.subject,
    description:
      (output.success ? output.data.task.description : undefined) ?? created.data.description ?? '',
    status: 'pending',
    activeForm: created.data.activeForm ?? null,
  };
  return [...list.filter((existing) => existing.id !== id), item];
}

/** The list after a TaskUpdate call: what it changed, or without the task it deleted. */
export function afterTaskUpdate(
  list: readonly TaskItem[],
  input: Record<string, unknown>,
): readonly TaskItem[] {
  const update = TaskUpdateInput.safeParse(input);
  if (!update.success) return list;
  const { taskId, status, subject, description, activeForm } = update.data;
  if (status === 'deleted') return list.filter((item) => item.id !== taskId);
  return list.map((item) =>
    item.id === taskId
      ? {
          ...item,
          status: status ?? item.status,
          subject: subject ?? item.subject,
          description: description ?? item.description,
          activeForm: activeForm ?? item.activeForm,
        }
      : item,
  );
}

/** The list as a TaskList result reports it: the CLI's own word on which tasks there are and how they stand. */
export function afterTaskList(list: readonly TaskItem[], result: unknown): readonly TaskItem[] {
  const output = TaskListOutput.safeParse(result);
  if (!output.success) return list;
  return output.data.tasks.map((task) => {
    const known = list.find((item) => item.id === task.id);
    return {
      id: task.id,
      subject: task.subject,
      description: known?.description ?? '',
      status: task.status,
      activeForm: known?.activeForm ?? null,
    };
  });
}

/** As TodoWrite's items, for its checklist. */
export function tasksAsTodos(list: readonly TaskItem[]): Todo[] {
  return list.map((item) => ({
    content: item.subject,
    status: item.status,
    ...(item.activeForm ? { activeForm: item.activeForm } : {}),
  }));
}

const STATUS_WORDS: Record<string, string> = {
  pending: 'to do',
  in_progress: 'in progress',
  completed: 'done',
  deleted: 'deleted',
};

/** A task call's card header, one short line: "Write parser", "#1 → in progress", "list". */
export function taskToolSummary(name: string, input: Record<string, unknown>): string {
  const subject = typeof input.subject === 'string' ? input.subject : '';
  const taskId = typeof input.taskId === 'string' ? `#${input.taskId}` : '';
  switch (name) {
    case 'TaskCreate':
      return subject;
    case 'TaskUpdate': {
      const status = typeof input.status === 'string' ? (STATUS_WORDS[input.status] ?? input.status) : '';
      return [taskId, subject, status && `→ ${status}`].filter(Boolean).join(' ');
    }
    case 'TaskGet':
      return taskId;
    default:
      return '';
  }
}
