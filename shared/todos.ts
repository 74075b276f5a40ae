import { z } from 'zod';

/** One item of Claude's todo list, as its TodoWrite tool takes it. */
export const Todo = z.looseObject({
  content: z.string(),
  status: z.enum(['pending', 'in_progress', 'completed']),
  /** What is being done, while it is: "Writing the parser". */
  activeForm: z.string().optional(),
});
export type Todo = z.infer<typeof Todo>;

const TodoWriteInput = z.looseObject({ todos: z.array(Todo) });

/** The list a TodoWrite call sets; null when its input is not one (still streaming, or a newer shape). */
export function todosOf(input: Record<string, unknown>): Todo[] | null {
  const parsed = TodoWriteInput.safeParse(input);
  return parsed.success ? parsed.data.todos : null;
}

/** "2 of 5 done". */
export function todoProgress(todos: readonly Todo[]): string {
  const done = todos.filter((todo) => todo.status === 'completed').length;
  return `${done} of ${todos.length} done`;
}
