import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ConversationEvent } from '../../shared/ipc';
import type { PermissionResult } from '../../shared/protocol';
import { describeSuggestions, Permissions } from './permissions';

const BASH_SUGGESTIONS = [
  {
    type: 'addRules',
    rules: [{ toolName: 'Bash', ruleContent: 'touch allowed.txt' }],
    behavior: 'allow',
    destination: 'localSettings',
  },
  { type: 'addDirectories', directories: ['/work/other'], destination: 'session' },
  { type: 'setMode', mode: 'acceptEdits', destination: 'session' },
];

function ask(permissions: Permissions, extra: Record<string, unknown> = {}) {
  const controller = new AbortController();
  const result = permissions.canUseTool(
    {
      subtype: 'can_use_tool',
      tool_name: 'Bash',
      input: { command: 'touch allowed.txt' },
      permission_suggestions: BASH_SUGGESTIONS,
      tool_use_id: 'toolu_1',
      ...extra,
    },
    controller.signal,
  ) as Promise<PermissionResult>;
  return { result, abort: () => controller.abort() };
}

function setup() {
  const events: ConversationEvent[] = [];
  const permissions = new Permissions((event) => events.push(event));
  const requestIds = () =>
    events.flatMap((event) => (event.kind === 'permission_request' ? [event.requestId] : []));
  return { events, permissions, requestIds };
}

describe('Permissions', () => {
  it('turns a request into an event and answers the CLI with what the user chose', async () => {
    const { events, permissions, requestIds } = setup();
    const allowed = ask(permissions);
    const remembered = ask(permissions);
    const denied = ask(permissions);
    expect(events[0]).toMatchObject({
      kind: 'permission_request',
      toolName: 'Bash',
      displayName: 'Bash',
      toolUseId: 'toolu_1',
      remember: 'Bash(touch allowed.txt) in this project; access to /work/other for this conversation',
    });
    const [a, b, c] = requestIds() as [string, string, string];
    expect(permissions.answer(a, { behavior: 'allow', remember: false })).toBe(true);
    expect(permissions.answer(b, { behavior: 'allow', remember: true })).toBe(true);
    expect(permissions.answer(c, { behavior: 'deny', message: '  ' })).toBe(true);
    expect(await allowed.result).toEqual({
      behavior: 'allow',
      updatedInput: { command: 'touch allowed.txt' },
    });
    // The rule and the folder are remembered; the mode stays the user's to pick.
    expect(await remembered.result).toEqual({
      behavior: 'allow',
      updatedInput: { command: 'touch allowed.txt' },
      updatedPermissions: BASH_SUGGESTIONS.slice(0, 2),
    });
    expect(await denied.result).toEqual({ behavior: 'deny', message: 'The user denied this tool use.' });
    expect(permissions.answer(a, { behavior: 'deny', message: '' })).toBe(false);
    expect(permissions.pending).toBe(0);
  });

  it('ends a request the CLI cancels, and denies all that wait when the turn stops', async () => {
    const { events, permissions, requestIds } = setup();
    const cancelled = ask(permissions);
    const stopped = ask(permissions);
    cancelled.abort();
    expect(await cancelled.result).toMatchObject({ behavior: 'deny' });
    permissions.denyAll('The user stopped Claude before answering.');
    expect(await stopped.result).toEqual({
      behavior: 'deny',
      message: 'The user stopped Claude before answering.',
    });
    const [first, second] = requestIds();
    expect(events.filter((event) => event.kind === 'permission_resolved')).toEqual([
      {
        kind: 'permission_resolved',
        requestId: first,
        outcome: 'cancelled',
        reason: 'Claude stopped waiting for an answer.',
      },
      {
        kind: 'permission_resolved',
        requestId: second,
        outcome: 'cancelled',
        reason: 'The user stopped Claude before answering.',
      },
    ]);
    expect(permissions.answer(second!, { behavior: 'allow', remember: false })).toBe(false);
  });
});

describe('Always allow', () => {
  it('applies only what the card says: changes it cannot put in words are left out', async () => {
    const { events, permissions, requestIds } = setup();
    const unsaid = [
      { type: 'removeRules', rules: [{ toolName: 'Bash' }], behavior: 'deny', destination: 'userSettings' },
      { type: 'removeDirectories', directories: ['/work/secret'], destination: 'localSettings' },
      { type: 'replaceRules', rules: [{ toolName: 'Bash' }], behavior: 'allow', destination: 'userSettings' },
      { type: 'addRules', rules: [{ toolName: 'Bash' }], behavior: 'ask', destination: 'localSettings' },
      { type: 'addRules', rules: [{ toolName: 'Read' }, { ruleContent: 'x' }], destination: 'localSettings' },
      { type: 'addRules', rules: [{ toolName: 'Edit' }], destination: 'somewhereElse' },
      { type: 'addRules', rules: [{ toolName: 'Edit' }], destination: 'toString' },
      { type: 'addDirectories', directories: ['/work/a', 7], destination: 'session' },
      { type: 'addDirectories', directories: ['/work/b'] },
      'addRules',
    ];
    const said = BASH_SUGGESTIONS[0];
    const remembered = ask(permissions, { permission_suggestions: [...unsaid, said] });
    expect(events[0]).toMatchObject({ remember: 'Bash(touch allowed.txt) in this project' });
    permissions.answer(requestIds()[0]!, { behavior: 'allow', remember: true });
    expect(await remembered.result).toEqual({
      behavior: 'allow',
      updatedInput: { command: 'touch allowed.txt' },
      updatedPermissions: [said],
    });
  });

  it('is not offered when nothing it would keep can be said', () => {
    const { events, permissions } = setup();
    ask(permissions, {
      permission_suggestions: [
        {
          type: 'removeRules',
          rules: [{ toolName: 'Bash' }],
          behavior: 'allow',
          destination: 'localSettings',
        },
        { type: 'setMode', mode: 'bypassPermissions', destination: 'session' },
      ],
    });
    expect(events[0]).toMatchObject({ remember: null });
  });
});

describe('a Write waiting for its answer', () => {
  const folder = mkdtempSync(join(tmpdir(), 'byre-write-'));
  const write = (file_path: string) => ({ tool_name: 'Write', input: { file_path, content: 'new\n' } });

  it('carries what the file holds now, so its card shows the real change; a new file has nothing', async () => {
    const existing = join(folder, 'notes.txt');
    writeFileSync(existing, 'old\n');
    writeFileSync(join(folder, 'image.bin'), Buffer.from([0x89, 0x50, 0, 1]));
    const { events, permissions } = setup();
    void ask(permissions, write(existing)).result;
    void ask(permissions, write(join(folder, 'new.txt'))).result;
    void ask(permissions, write(join(folder, 'image.bin'))).result;
    await expect.poll(() => events.length).toBe(3);
    const before = Object.fromEntries(
      events.map((event) =>
        event.kind === 'permission_request' ? [event.input.file_path, event.fileBefore] : ['', ''],
      ),
    );
    expect(before).toEqual({
      [existing]: 'old\n',
      [join(folder, 'new.txt')]: undefined,
      [join(folder, 'image.bin')]: undefined,
    });
  });

  it('is denied, not left waiting, when the user stops while the file is read', async () => {
    writeFileSync(join(folder, 'slow.txt'), 'old\n');
    const { events, permissions } = setup();
    const asked = ask(permissions, write(join(folder, 'slow.txt')));
    permissions.denyAll('The user stopped the turn.');
    expect(await asked.result).toEqual({ behavior: 'deny', message: 'The user stopped the turn.' });
    expect(events).toEqual([]);
    expect(permissions.pending).toBe(0);
  });
});

describe('describeSuggestions', () => {
  it('says what would be remembered, in words', () => {
    expect(describeSuggestions(BASH_SUGGESTIONS)).toBe(
      'Bash(touch allowed.txt) in this project; access to /work/other for this conversation; the mode "Accept edits" for this conversation',
    );
    expect(
      describeSuggestions([
        { type: 'addRules', rules: [{ toolName: 'WebFetch' }], destination: 'userSettings' },
      ]),
    ).toBe('WebFetch in every project');
    expect(
      describeSuggestions([{ type: 'addRules', rules: [{ toolName: 'Bash' }], behavior: 'deny' }]),
    ).toBeNull();
    expect(describeSuggestions(undefined)).toBeNull();
    expect(describeSuggestions([42, { type: 'unknown' }])).toBeNull();
  });
});
