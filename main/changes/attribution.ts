/**
 * Who changed each file in a turn, from the turn's tool calls: a file tool that names the path did it; else,
 * if the turn ran a shell command, Bash did (which of its commands cannot be told, so all are given); else
 * nothing of the conversation's did (a hand edit during the turn, a watcher). Pure: the tracker gathers the
 * calls from the CLI's assistant lines (subagents' included) and turns paths relative to the work tree.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import type { ChangeCause } from '../../shared/ipc';
import type { CliMessage } from '../../shared/protocol';

/** A tool call that may change files: the path a file tool names (relative to the work tree), or a command. */
export type ToolCall = { tool: string; path: string } | { tool: 'Bash'; command: string };

/** The file tools, and the input field each names its file in. */
const FILE_TOOLS: Record<string, string> = {
  Write: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
};

const MAX_COMMAND = 2_000;

/** A tool the model used, as either lane hears of it: a stream line's tool_use block, or a PreToolUse hook. */
export interface ToolUse {
  name: string;
  input: Record<string, unknown>;
}

/** The tool uses of one CLI line. */
export function toolUsesOf(message: CliMessage): ToolUse[] {
  if (message.type !== 'assistant') return [];
  return message.message.content.flatMap((block) =>
    block.type === 'tool_use' ? [{ name: block.name, input: block.input }] : [],
  );
}

/**
 * The calls among `uses` that may change files. `toWorkTree` turns a tool's path into one relative to the
 * work tree, or null when it lies outside it.
 */
export function toolCalls(uses: readonly ToolUse[], toWorkTree: (path: string) => string | null): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const { name, input } of uses) {
    const field = FILE_TOOLS[name];
    if (field) {
      const raw = input[field];
      const path = typeof raw === 'string' ? toWorkTree(raw) : null;
      if (path !== null) calls.push({ tool: name, path });
    } else if (name === 'Bash' && typeof input.command === 'string') {
      calls.push({ tool: 'Bash', command: input.command.slice(0, MAX_COMMAND) });
    }
  }
  return calls;
}

/** What changed `path` in a turn whose calls were `calls`. */
export function causesOf(path: string, calls: readonly ToolCall[]): ChangeCause[] {
  const tools = new Set<string>();
  for (const call of calls) if ('path' in call && call.path === path) tools.add(call.tool);
  if (tools.size > 0) return [...tools].map((tool) => ({ tool, command: null }));
  const commands = [...new Set(calls.flatMap((call) => ('command' in call ? [call.command] : [])))];
  if (commands.length > 0) return commands.map((command) => ({ tool: 'Bash', command }));
  return [{ tool: null, command: null }];
}

/**
 * A function from a tool's path (absolute, or relative to the conversation's folder) to one relative to
 * `workTree` with '/', or null outside it. Both sides are compared as real paths: the CLI may name the
 * folder through a link (/tmp on macOS) while git names it resolved.
 */
export function workTreePaths(
  workTree: string,
  cwd: string,
  /** The folder is on another host: its paths are the host's, which this computer's links say nothing of. */
  onHost = false,
): (path: string) => string | null {
  if (onHost) {
    return (path) => {
      const inside = posix.relative(workTree, posix.resolve(cwd, path));
      return inside === '' || inside.startsWith('..') || posix.isAbsolute(inside) ? null : inside;
    };
  }
  const root = real(workTree);
  return (path) => {
    const absolute = isAbsolute(path) ? path : join(cwd, path);
    const inside = relative(root, real(absolute));
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return null;
    return inside.split(sep).join('/');
  };
}

/** The real path of `path`, resolving its nearest existing parent when it does not exist (yet, or now). */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? resolve(path) : join(real(parent), basename(path));
  }
}
