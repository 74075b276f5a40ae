import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliMessage } from '../../shared/protocol';
import { causesOf, toolCalls, toolUsesOf, workTreePaths, type ToolCall } from './attribution';

/** Who changed a file in a turn, as the panel says it: the file tool that named it, else Bash, else nobody. */

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'byre-attribution-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function assistant(blocks: { name: string; input: Record<string, unknown> }[], subagent = false): CliMessage {
  return {
    type: 'assistant',
    message: {
      id: 'm',
      role: 'assistant',
      model: 'fake',
      content: blocks.map((block, index) => ({ type: 'tool_use', id: `t${index}`, ...block })),
    },
    parent_tool_use_id: subagent ? 'parent' : null,
    session_id: 's',
    uuid: 'u',
  } as CliMessage;
}

describe('toolCalls', () => {
  it('reads a host’s paths as the host’s: in its folder and under its work tree, none of this computer’s links followed', () => {
    // The work tree is a repository's top; the conversation runs in a subfolder of it, on the host.
    const toWorkTree = workTreePaths('/srv/repo', '/srv/repo/app', true);
    expect(toWorkTree('/srv/repo/app/src/a.ts')).toBe('app/src/a.ts');
    expect(toWorkTree('b.ts')).toBe('app/b.ts');
    expect(toWorkTree('../README.md')).toBe('README.md');
    expect(toWorkTree('/srv/elsewhere/c.ts')).toBeNull();
    expect(toWorkTree('/srv/repo')).toBeNull();
  });

  it("takes the file tools' paths (relative to the work tree) and Bash's commands, a subagent's too", () => {
    const toWorkTree = workTreePaths(root, root);
    const calls = toolCalls(
      toolUsesOf(
        assistant([
          { name: 'Write', input: { file_path: join(root, 'src', 'a.ts'), content: '' } },
          { name: 'Edit', input: { file_path: 'b.ts', old_string: 'x', new_string: 'y' } },
          { name: 'NotebookEdit', input: { notebook_path: join(root, 'n.ipynb'), new_source: '' } },
          { name: 'Read', input: { file_path: join(root, 'c.ts') } },
          { name: 'Write', input: { file_path: '/elsewhere/d.ts', content: '' } },
        ]),
      ),
      toWorkTree,
    );
    expect(calls).toEqual([
      { tool: 'Write', path: 'src/a.ts' },
      { tool: 'Edit', path: 'b.ts' },
      { tool: 'NotebookEdit', path: 'n.ipynb' },
    ]);
    expect(
      toolCalls(
        toolUsesOf(assistant([{ name: 'Bash', input: { command: 'npm run fmt' } }], true)),
        toWorkTree,
      ),
    ).toEqual([{ tool: 'Bash', command: 'npm run fmt' }]);
  });
});

describe('causesOf', () => {
  const calls: ToolCall[] = [
    { tool: 'Edit', path: 'a.ts' },
    { tool: 'Bash', command: 'npm run fmt' },
    { tool: 'Bash', command: 'sed -i s/x/y/ b.ts' },
  ];

  it('names the file tool that named the path, never Bash as well', () => {
    expect(causesOf('a.ts', calls)).toEqual([{ tool: 'Edit', command: null }]);
  });

  it("gives a file no tool named to Bash, with each of the turn's commands", () => {
    expect(causesOf('b.ts', calls)).toEqual([
      { tool: 'Bash', command: 'npm run fmt' },
      { tool: 'Bash', command: 'sed -i s/x/y/ b.ts' },
    ]);
  });

  it('says nobody of the conversation changed it when the turn ran no command', () => {
    expect(causesOf('c.ts', [{ tool: 'Write', path: 'a.ts' }])).toEqual([{ tool: null, command: null }]);
  });
});
