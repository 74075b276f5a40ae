import { writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import type { ExportDelivery, ExportFile } from '../../shared/library';

/**
 * An export under Electron, written by main where the user chose in the save dialog: a reply of hundreds
 * of MB over IPC, then a Blob in the renderer, would hold the export three times over. The dialog asks
 * where the first file (the Markdown or the JSONL) goes; the rest, a Markdown export's images, which it
 * links by their names, go beside it under those names. main/hosts/index.ts only shows the dialog.
 */

export interface SaveDialogOptions {
  defaultPath: string;
  filters: { name: string; extensions: string[] }[];
}

const KINDS: Record<string, string> = { '.md': 'Markdown', '.jsonl': 'JSON Lines' };

/** The dialog starts in `folder` with the export's own name, offering its kind of file. */
export function saveDialogOptions(files: readonly ExportFile[], folder: string): SaveDialogOptions {
  const name = basename(files[0]?.name ?? 'export');
  const extension = extname(name);
  const kind = KINDS[extension];
  return {
    defaultPath: join(folder, name),
    filters: kind ? [{ name: kind, extensions: [extension.slice(1)] }] : [],
  };
}

/** Where each file goes once the user chose `chosen` for the first. */
export function savePlan(files: readonly ExportFile[], chosen: string): { path: string; file: ExportFile }[] {
  return files.map((file, index) => ({
    // Only a name, whatever the file calls itself: nothing is written outside the chosen folder.
    path: index === 0 ? chosen : join(dirname(chosen), basename(file.name)),
    file,
  }));
}

export async function writeExport(files: readonly ExportFile[], chosen: string): Promise<ExportDelivery> {
  const plan = savePlan(files, chosen);
  for (const { path, file } of plan) await writeFile(path, Buffer.from(file.data, file.encoding));
  return { way: 'saved', paths: plan.map(({ path }) => path) };
}
