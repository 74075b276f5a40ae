import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Lane, LaneChoice } from '../../shared/ipc';

/**
 * How Claude Code is logged in, as far as its environment and files tell, and so which lane a new
 * conversation gets by default (cli-facts 19): a subscription bills the interactive CLI to the plan's limits
 * and stream-json runs to the Agent SDK credit, so it gets Terminal; an API key (or another endpoint, such as
 * a proxy or a cloud provider) pays API rates in either lane, so it gets Stream, with its typed events.
 * Nothing is asked of the network, and no secret is read: only which kind of login there is.
 */

export type Login = 'subscription' | 'api' | 'unknown';

/** Variables that make the CLI bill an API account or another provider, whatever login it also has. */
const API_VARIABLES = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_BASE_URL',
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'CLAUDE_CODE_USE_FOUNDRY',
];

export function loginOf(
  env: NodeJS.ProcessEnv,
  readText: (path: string) => string | null = readQuietly,
): Login {
  if (API_VARIABLES.some((name) => env[name])) return 'api';
  if (env.CLAUDE_CODE_OAUTH_TOKEN) return 'subscription';
  const home = env.HOME || homedir();
  const configDir = env.CLAUDE_CONFIG_DIR || join(home, '.claude');
  const credentials = parsed(readText(join(configDir, '.credentials.json')));
  if (credentials && 'claudeAiOauth' in credentials) return 'subscription';
  // On macOS the tokens are in the keychain; the account the CLI logged in with is in its config file.
  const config = parsed(
    readText(env.CLAUDE_CONFIG_DIR ? join(configDir, '.claude.json') : join(home, '.claude.json')),
  );
  if (config && typeof config.oauthAccount === 'object' && config.oauthAccount !== null)
    return 'subscription';
  if (config && typeof config.primaryApiKey === 'string') return 'api';
  return 'unknown';
}

/** The lane new conversations get: the user's choice, or the login's. */
export function defaultLane(choice: LaneChoice, login: Login): Lane {
  if (choice !== 'auto') return choice;
  return login === 'subscription' ? 'terminal' : 'stream';
}

function parsed(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function readQuietly(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}
