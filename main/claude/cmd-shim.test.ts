import { describe, expect, it } from 'vitest';
import { commandFor, shimTarget } from './cmd-shim';
import { CliNotFound } from './errors';

/** Shims as npm's cmd-shim writes them (CRLF, as on disk). */
const HEAD = [
  '@ECHO off',
  'GOTO start',
  ':find_dp0',
  'SET dp0=%~dp0',
  'EXIT /b',
  ':start',
  'SETLOCAL',
  'CALL :find_dp0',
];
const crlf = (lines: string[]) => [...lines, ''].join('\r\n');

const NODE_SHIM = crlf([
  ...HEAD,
  '',
  'IF EXIST "%dp0%\\node.exe" (',
  '  SET "_prog=%dp0%\\node.exe"',
  ') ELSE (',
  '  SET "_prog=node"',
  '  SET PATHEXT=%PATHEXT:;.JS;=;%',
  ')',
  '',
  'endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  "%dp0%\\node_modules\\@anthropic-ai\\claude-code\\cli.js" %*',
]);

const EXE_SHIM = crlf([
  ...HEAD,
  'endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%dp0%\\node_modules\\@anthropic-ai\\claude-code\\bin\\claude.exe"   %*',
]);

/** npm 6's shim, still found on older machines. */
const OLD_SHIM = crlf([
  '@IF EXIST "%~dp0\\node.exe" (',
  '  "%~dp0\\node.exe"  "%~dp0\\node_modules\\@anthropic-ai\\claude-code\\cli.js" %*',
  ') ELSE (',
  '  @SETLOCAL',
  '  @SET PATHEXT=%PATHEXT:;.JS;=;%',
  '  node  "%~dp0\\node_modules\\@anthropic-ai\\claude-code\\cli.js" %*',
  ')',
]);

const SHIM = 'C:\\Users\\Ann Lee\\AppData\\Roaming\\npm\\claude.cmd';
const NPM = 'C:\\Users\\Ann Lee\\AppData\\Roaming\\npm';
const CLI_JS = `${NPM}\\node_modules\\@anthropic-ai\\claude-code\\cli.js`;
const CLAUDE_EXE = `${NPM}\\node_modules\\@anthropic-ai\\claude-code\\bin\\claude.exe`;

const only =
  (...present: string[]) =>
  (path: string) =>
    present.includes(path);
/** node as the PATH has it: never a bare name, which Windows would look for in the project's folder first. */
const PATH_NODE = 'C:\\Program Files\\nodejs\\node.exe';
const onPath = (name: string) => (name === 'node' ? PATH_NODE : null);

describe('shimTarget', () => {
  it('runs node on cli.js for a script shim: the node.exe beside it if there is one, else node from PATH', () => {
    expect(shimTarget(SHIM, NODE_SHIM, only(), onPath)).toEqual({ command: PATH_NODE, args: [CLI_JS] });
    // No node on the PATH: none run, not one of the folder's.
    expect(shimTarget(SHIM, NODE_SHIM, only(), () => null)).toBeNull();
    expect(shimTarget(SHIM, NODE_SHIM, only(`${NPM}\\node.exe`), onPath)).toEqual({
      command: `${NPM}\\node.exe`,
      args: [CLI_JS],
    });
  });

  it('runs the claude.exe a native shim names, with nothing before the arguments', () => {
    expect(shimTarget(SHIM, EXE_SHIM, only(CLAUDE_EXE), onPath)).toEqual({ command: CLAUDE_EXE, args: [] });
  });

  it("reads npm 6's shim the way cmd.exe would take it", () => {
    expect(shimTarget(SHIM, OLD_SHIM, only(), onPath)).toEqual({ command: PATH_NODE, args: [CLI_JS] });
    expect(shimTarget(SHIM, OLD_SHIM, only(`${NPM}\\node.exe`), onPath)).toEqual({
      command: `${NPM}\\node.exe`,
      args: [CLI_JS],
    });
  });

  it('is null for a batch file that is not a shim it can read', () => {
    expect(
      shimTarget(SHIM, crlf(['@echo off', 'call "%HOME%\\bin\\claude.exe" %*']), only(), onPath),
    ).toBeNull();
    expect(shimTarget(SHIM, crlf(['@echo off', 'echo hello']), only(), onPath)).toBeNull();
    // A shim whose claude.exe is gone names nothing to run.
    expect(shimTarget(SHIM, EXE_SHIM, only(), onPath)).toBeNull();
  });
});

describe('commandFor', () => {
  const files = (text: string, ...present: string[]) => ({
    read: () => text,
    exists: only(...present),
    which: onPath,
  });
  // The launch line holds JSON: it must reach the CLI as written, so no shell may see it.
  const args = ['--settings', '{"permissions":{"allow":["Bash(echo \\"a & b\\")"]}}', '--print'];

  it("passes every argument as it is after the shim's own, without a shell", () => {
    expect(commandFor(SHIM, args, 'win32', files(NODE_SHIM))).toEqual({
      command: PATH_NODE,
      args: [CLI_JS, ...args],
    });
    expect(commandFor(SHIM, args, 'win32', files(EXE_SHIM, CLAUDE_EXE))).toEqual({
      command: CLAUDE_EXE,
      args,
    });
  });

  it('leaves an executable, and anything off Windows, as it is', () => {
    expect(commandFor(CLAUDE_EXE, args, 'win32', files(''))).toEqual({ command: CLAUDE_EXE, args });
    expect(commandFor('/usr/local/bin/claude.cmd', args, 'linux', files(''))).toEqual({
      command: '/usr/local/bin/claude.cmd',
      args,
    });
  });

  it('says why it cannot run a batch file that is not a shim', () => {
    const attempt = () => commandFor(SHIM, args, 'win32', files(crlf(['@echo off', 'echo hello'])));
    expect(attempt).toThrow(CliNotFound);
    expect(attempt).toThrow(/is a batch file Byre cannot run: it is not an npm shim/);
  });
});
