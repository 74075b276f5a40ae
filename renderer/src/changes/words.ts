/**
 * The Changes panel's words for main's data: a step as the Turn filter lists it, a file's status, and which
 * steps changed a file and with what ("turn 3 · Bash: npm run fmt"). Kept apart from the components so one
 * wording serves the list, the dialog and their tests.
 */
import type { ChangeCause, ChangedFile, ChangeStep, RevertPreview, RevertTarget } from '../../../shared/ipc';

export const filesWord = (count: number) => `${count.toLocaleString('en-US')} file${count === 1 ? '' : 's'}`;

/** A list of paths in a few words: "src/app.ts", "src/app.ts and 2 more". */
function pathsWord(paths: readonly string[]): string {
  const [first] = paths;
  if (first === undefined) return 'no files';
  return paths.length === 1 ? first : `${first} and ${paths.length - 1} more`;
}

/** A step as the Turn filter lists it. */
export function stepLabel(step: ChangeStep): string {
  switch (step.kind) {
    case 'turn':
      return step.prompt ? `Turn ${step.turn}: ${step.prompt}` : `Turn ${step.turn}`;
    case 'revert':
      return `Revert: ${pathsWord(step.paths)} to ${step.to}${step.undone ? ' (undone)' : ''}`;
    case 'undo':
      return `Undo of revert ${step.undoes}: ${pathsWord(step.paths)}`;
    case 'outside':
      return `Changed outside the conversation: ${filesWord(step.files)}`;
  }
}

/** A step as a file's row names it, in lower case: "turn 3", "revert 5". */
function stepShort(step: ChangeStep | undefined, number: number): string {
  if (!step) return `step ${number}`;
  switch (step.kind) {
    case 'turn':
      return `turn ${step.turn}`;
    case 'revert':
      return `revert ${step.step}`;
    case 'undo':
      return `undo of revert ${step.undoes}`;
    case 'outside':
      return 'outside the conversation';
  }
}

function causeWords(cause: ChangeCause): string {
  if (cause.tool === null) return 'not by Claude’s tools';
  return cause.command ? `${cause.tool}: ${cause.command}` : cause.tool;
}

/** A prompt's first few words, to tell its turn by: "fix the failing tests in…". */
function firstWords(prompt: string): string {
  const words = prompt.trim().split(/\s+/);
  return words.length > 6 ? `${words.slice(0, 6).join(' ')}…` : words.join(' ');
}

/**
 * Each step that changed a file, oldest first, with what did it: "turn 3 “fix the tests” · Bash: npm run
 * fmt".
 */
export function fileSteps(file: ChangedFile, steps: readonly ChangeStep[]): string[] {
  return file.steps.map(({ step, causes }) => {
    const found = steps.find((candidate) => candidate.step === step);
    const short = stepShort(found, step);
    const name = found?.kind === 'turn' && found.prompt ? `${short} “${firstWords(found.prompt)}”` : short;
    // A revert says what it did itself, a change outside the conversation is no tool's; a turn's row says
    // which tool did it.
    const by = found?.kind === 'outside' ? '' : [...new Set(causes.map(causeWords))].join(', ');
    return by ? `${name} · ${by}` : name;
  });
}

/** "modified", "renamed from old/name.ts", with what the path is when it is not a file. */
export function statusWords(file: ChangedFile): string {
  const status = file.status === 'renamed' && file.from ? `renamed from ${file.from}` : file.status;
  return file.kind === 'file' ? status : `${status}, ${file.kind === 'symlink' ? 'symlink' : 'submodule'}`;
}

/** The revert dialog's title. */
export function revertTitle(target: RevertTarget, steps: readonly ChangeStep[]): string {
  switch (target.kind) {
    case 'file':
      return `Revert ${target.path}?`;
    case 'step': {
      const step = steps.find((candidate) => candidate.step === target.step);
      return step?.kind === 'turn' ? `Revert turn ${step.turn}?` : `Revert step ${target.step}?`;
    }
    case 'undo':
      return `Undo revert ${target.step}?`;
  }
}

/** What a revert does to one file, in words. */
export function actionWords(action: RevertPreview['files'][number]['action']): string {
  switch (action) {
    case 'restore':
      return 'written back';
    case 'delete':
      return 'deleted (it did not exist then)';
    case 'create':
      return 'made again';
  }
}

/** The line above the list of files: how many, since when. */
export function summaryWords(count: number, step: ChangeStep | undefined): string {
  const since = step ? `in ${stepShort(step, step.step)}` : 'since the conversation’s start';
  if (count === 0) return step ? `No file changed ${since}.` : `No file has changed ${since}.`;
  return `${filesWord(count)} changed ${since}.`;
}

/** What the panel shows against a worktree's base: committed on its branch or not. */
export function againstBaseWords(count: number, base: string): string {
  if (count === 0) return `No file differs from ${base}.`;
  return `${filesWord(count)} ${count === 1 ? 'differs' : 'differ'} from ${base}, committed or not.`;
}
