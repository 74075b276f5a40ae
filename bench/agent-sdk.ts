import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The Claude Agent SDK, for the benchmarks that compare Byre with it (sdk_end_to_end, the library's
 * listSessions). It is not a dependency of the project: it is installed into bench/agent-sdk on first use,
 * without its optional platform package, a second 384 MB copy of the claude binary that the benchmarks never
 * run (they give the SDK a stand-in CLI).
 */

/**
 * bench/agent-sdk of the repository: found from this module's folder upwards, so that the same code finds it
 * from bench/ (tsx) and from a bundle in bench/data/ (the library benchmark's child), whose own folder holds
 * no agent-sdk. Trusting import.meta.dirname alone sent a bundled child to bench/data/agent-sdk, where it
 * exited 1 and the library's figures went missing.
 */
function agentSdkDir(): string {
  for (let dir = import.meta.dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, 'bench', 'agent-sdk');
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) {
      throw new Error(`no bench/agent-sdk/package.json in any folder above ${import.meta.dirname}`);
    }
  }
}

const DIR = agentSdkDir();
/** The SDK's entry, installed by loadAgentSdk if it is not there yet. */
const ENTRY = join(DIR, 'node_modules', '@anthropic-ai', 'claude-agent-sdk', 'sdk.mjs');

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
