import { useState } from 'react';
import { tasksAsTodos } from '../../../shared/tasks';
import { todoProgress, todosOf, type Todo } from '../../../shared/todos';
import { useStore } from '../state/store';

/**
 * Claude's todo list (its TodoWrite tool): each call's card in the log shows the list it set, as a
 * checklist; above the composer, the latest list stays in view and changes in place as Claude works through
 * it, until every item is done. A CLI with the newer task tools (TaskCreate, TaskUpdate) builds the same list
 * one task at a time (shared/tasks.ts), and the panel shows that one the same way.
 */

const MARK: Record<Todo['status'], { glyph: string; said: string }> = {
  completed: { glyph: '✓', said: 'Done' },
  in_progress: { glyph: '◐', said: 'In progress' },
  pending: { glyph: '○', said: 'To do' },
};

export function TodoChecklist({ todos, label }: { todos: readonly Todo[]; label: string }) {
  return (
    <ul className="todo-list" aria-label={label}>
      {todos.map((todo, index) => (
        <li key={index} className={`todo todo-${todo.status}`}>
          <span className="todo-mark" aria-hidden="true">
            {MARK[todo.status].glyph}
          </span>
          <span className="sr-only">{MARK[todo.status].said}: </span>
          <span className="todo-text">
            {todo.status === 'in_progress' && todo.activeForm ? todo.activeForm : todo.content}
          </span>
        </li>
      ))}
    </ul>
  );
}

const NO_TODOS: Todo[] = [];

/** Above the composer while the conversation's latest todo list has something left to do. */
export function TodoPanel({ tabId }: { tabId: string }) {
  const input = useStore((state) => {
    const conversation = state.tabs[tabId]?.conversation;
    const id = conversation?.todoToolId;
    return id ? conversation.tools[id]?.input : undefined;
  });
  const taskList = useStore((state) => state.tabs[tabId]?.conversation.taskList);
  const [open, setOpen] = useState(true);
  const todos = taskList?.length ? tasksAsTodos(taskList) : (input && todosOf(input)) || NO_TODOS;
  if (todos.length === 0 || todos.every((todo) => todo.status === 'completed')) return null;
  const current = todos.find((todo) => todo.status === 'in_progress');
  return (
    <section className="todo-panel" aria-label="Todo list">
      <button
        type="button"
        className="link-button todo-panel-head"
        aria-expanded={open}
        onClick={() => setOpen((value) => !value)}
      >
        <span aria-hidden="true">{open ? '▾' : '▸'}</span> Todo list · {todoProgress(todos)}
        {!open && current ? ` · ${current.activeForm ?? current.content}` : ''}
      </button>
      {open && <TodoChecklist todos={todos} label="Items" />}
    </section>
  );
}
