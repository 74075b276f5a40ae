/**
 * What a Write replaced, from the CLI's own report of it: the `user` line that answers a Write carries
 * `tool_use_result` (sdk-tools.d.ts `FileWriteOutput`), and an update says what the file held before
 * (`originalFile`). The Write card diffs against that, so overwriting a file shows the real change; a
 * created file, or an update too large for the CLI to include, has none and shows every line as added.
 */
import { z } from 'zod';
import type { ToolCall } from './state';

const FileWriteOutput = z.looseObject({
  type: z.enum(['create', 'update']),
  filePath: z.string(),
  originalFile: z.string().nullable(),
});

/** Whether a saved line's tool report is a Write's update, whose file before it the card diffs against. */
export function keptWriteResult(toolUseResult: unknown): boolean {
  const output = FileWriteOutput.safeParse(toolUseResult);
  return output.success && output.data.type === 'update' && output.data.originalFile !== null;
}

/** The text the Write's file held before it, when the CLI reported it for this call. */
export function writtenOver(tool: ToolCall, toolUseResult: unknown): string | undefined {
  if (tool.name !== 'Write') return undefined;
  const output = FileWriteOutput.safeParse(toolUseResult);
  if (!output.success || output.data.type !== 'update' || output.data.originalFile === null) return undefined;
  // A line answering several calls carries one report: it is this call's only if it names this file.
  if (output.data.filePath !== tool.input.file_path) return undefined;
  return output.data.originalFile;
}
