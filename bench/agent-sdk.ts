import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The Claude Agent SDK, for the benchmarks that compare Byre with it (sdk_end_to_end, the library's
 * listSessions). It is not a dependency of the project: it is installed into bench/agent-sdk on first use,
 * without its optional platform package, a second 384 MB copy of the claude binary that the benchmarks never
 * run (they give the SDK a stand-in CLI).
 */

const DIR = join(import.meta.dirname, 'agent-sdk');
/**
 * The SDK's entry. A benchmark child bundled into a temporary folder (bench/library.ts) is told it by
 * BENCH_AGENT_SDK_ENTRY: its own import.meta.dirname is that folder, not bench/.
 */
export const AGENT_SDK_ENTRY =
  process.env.BENCH_AGENT_SDK_ENTRY ??
  join(DIR, 'node_modules', '@anthropic-ai', 'claude-agent-sdk', 'sdk.mjs');
const ENTRY = AGENT_SDK_ENTRY;

/** The parts of the SDK the benchmarks call. */
export interface AgentSdk {
  query(args: { prompt: string; options: Record<string, unknown> }): AsyncIterable<{ type?: unknown }>;
  listSessions(options?: { limit?: number }): Promise<unknown[]>;
}

export async function loadAgentSdk(): Promise<AgentSdk> {
  if (!existsSync(ENTRY)) {
    process.stderr.write(
      'bench: installing the Agent SDK into bench/agent-sdk (once, without its claude binary)…\n',
    );
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const installed = spawnSync(npm, ['ci', '--omit=optional', '--no-audit', '--no-fund'], {
      cwd: DIR,
      stdio: ['ignore', 'ignore', 'inherit'],
      shell: process.platform === 'win32',
    });
    if (installed.status !== 0 || !existsSync(ENTRY)) {
      throw new Error('the Agent SDK could not be installed into bench/agent-sdk (npm ci failed)');
    }
  }
  return (await import(pathToFileURL(ENTRY).href)) as AgentSdk;
}
