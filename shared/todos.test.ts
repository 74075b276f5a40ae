import { describe, expect, it } from 'vitest';
import { todoProgress, todosOf } from './todos';

describe('todosOf', () => {
  it('reads the list a TodoWrite call sets, and nothing from an input that is not one', () => {
    const todos = todosOf({
      todos: [
        { content: 'Write it', status: 'completed', activeForm: 'Writing it' },
        { content: 'Test it', status: 'in_progress', activeForm: 'Testing it' },
      ],
    });
    expect(todos?.map((todo) => todo.status)).toEqual(['completed', 'in_progress']);
    expect(todoProgress(todos ?? [])).toBe('1 of 2 done');
    expect(todosOf({})).toBeNull();
    expect(todosOf({ todos: [{ content: 'x', status: 'someday' }] })).toBeNull();
  });
});
