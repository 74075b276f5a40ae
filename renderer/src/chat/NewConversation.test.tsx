import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it } from 'vitest';
import { useStore } from '../state/store';
import { NewConversation } from './NewConversation';

/**
 * The new-conversation form as it first renders, before main has said anything about the folder: a form
 * brought back by a refused worktree keeps "In a new worktree" ticked and Start waits for the folder to be
 * checked, rather than start a conversation in the main checkout and drop the first message.
 */

/** The Start button's own tag. */
const startButton = (html: string) => /<button type="submit"[^>]*>Start<\/button>/.exec(html)?.[0] ?? '';

afterEach(() => useStore.setState({ refusedStart: null }));

describe('Start in the new-conversation form', () => {
  it('waits for the folder to be checked when a refused worktree brings the form back', () => {
    useStore.setState({
      refusedStart: {
        cwd: '/repo',
        options: { permissionMode: 'default', worktree: { base: 'main' }, firstMessage: 'Fix the login' },
        reason: 'A worktree named fix-login is already there.',
      },
    });
    const html = renderToStaticMarkup(<NewConversation />);
    expect(html).toContain('The worktree was not made: A worktree named fix-login is already there.');
    expect(html).toMatch(/<input type="checkbox"[^>]*checked=""[^>]*>In a new worktree/);
    const start = startButton(html);
    expect(start).toContain('disabled');
    const described = /aria-describedby="([^"]+)"/.exec(start)?.[1];
    expect(html).toMatch(
      new RegExp(`id="${described}"[^>]*role="status"[^>]*>Checking the folder for a worktree…<`),
    );
  });

  it('is ready for a folder when the box is not ticked', () => {
    useStore.setState({
      refusedStart: { cwd: '/repo', options: { permissionMode: 'default' }, reason: 'unused' },
    });
    const start = startButton(renderToStaticMarkup(<NewConversation />));
    expect(start).not.toBe('');
    expect(start).not.toContain('disabled');
  });
});
