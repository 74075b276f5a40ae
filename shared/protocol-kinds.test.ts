import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleBase, sampleLines, sampleSystem } from './conversation/test-support/sample-kinds';
import { decodeCliMessage } from './protocol';

/**
 * One line of every kind in the Agent SDK's `SDKMessage` union (sdk.d.ts), and of the other kinds the CLI
 * writes on stdout, through the decoder: each decodes, none is damage. Lines the pinned CLI was seen to
 * write are the recorded ones (test-support/recorded-kinds.ts); the rest are built from sdk.d.ts.
 */

/** The 40 members of sdk.d.ts's SDKMessage union, by the kind each is. */
const SDK_MESSAGE_KINDS = [
  'assistant',
  'user',
  'user (replay)',
  'result',
  'system/init',
  'stream_event',
  'system/compact_boundary',
  'system/status',
  'system/api_retry',
  'system/control_request_progress',
  'system/model_refusal_fallback',
  'system/model_refusal_no_fallback',
  'system/local_command_output',
  'system/hook_started',
  'system/hook_progress',
  'system/hook_response',
  'system/plugin_install',
  'tool_progress',
  'auth_status',
  'system/task_notification',
  'system/task_started',
  'system/task_updated',
  'system/task_progress',
  'system/background_tasks_changed',
  'system/thinking_tokens',
  'system/session_state_changed',
  'system/worker_shutting_down',
  'system/commands_changed',
  'system/notification',
  'system/files_persisted',
  'tool_use_summary',
  'system/memory_recall',
  'rate_limit_event',
  'system/elicitation_complete',
  'system/permission_denied',
  'prompt_suggestion',
  'system/mirror_error',
  'system/informational',
  'conversation_reset',
  'system/session_writes_lost',
];

describe('every kind the CLI writes', () => {
  it('has a sample line for each of the 40 SDKMessage kinds', () => {
    expect(new Set(SDK_MESSAGE_KINDS).size).toBe(40);
    for (const kind of SDK_MESSAGE_KINDS) expect(sampleLines, kind).toHaveProperty([kind]);
  });

  it.each(Object.entries(sampleLines))('decodes %s', (kind, line) => {
    expect(decodeCliMessage(line), kind).toMatchObject({ ok: true });
  });

  it('has a decision for every kind in protocol-kinds.md', () => {
    const table = readFileSync(join(import.meta.dirname, 'protocol-kinds.md'), 'utf8');
    const rows = new Set([...table.matchAll(/^\| `([^`]+)` +\|/gm)].map((match) => match[1]));
    for (const kind of Object.keys(sampleLines)) {
      expect(rows, kind).toContain(kind.replace(' (replay)', ' (isReplay)'));
    }
  });

  it('calls a future kind or subtype news (kept for the inspector), and a line with no type damage', () => {
    expect(decodeCliMessage({ type: 'hologram', ...sampleBase() })).toMatchObject({
      ok: false,
      unknownKind: true,
    });
    expect(decodeCliMessage(sampleSystem('telepathy', {}))).toMatchObject({ ok: false, unknownKind: true });
    const untyped = decodeCliMessage({ subtype: 'init' });
    expect(untyped.ok || untyped.unknownKind).toBeFalsy();
    // A known kind that fails its schema is damage too.
    const broken = decodeCliMessage(sampleSystem('local_command_output', { content: 42 }));
    expect(broken.ok || broken.unknownKind).toBeFalsy();
  });
});
