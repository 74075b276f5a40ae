import { describe, expect, it } from 'vitest';
import {
  branchView,
  buildFamily,
  familyRoot,
  sessionParents,
  shortText,
  type ChainEntry,
  type FamilySession,
} from './family';
import type { ForkRecord } from './index';

/** Entries as the library reads them; each one's parent is the one before unless said otherwise. */
function chain(
  ...specs: {
    uuid: string;
    parent?: string | null;
    role?: 'user' | 'assistant';
    text?: string;
    message?: boolean;
    at?: number;
  }[]
): ChainEntry[] {
  return specs.map((spec, index) => ({
    uuid: spec.uuid,
    parentUuid: spec.parent !== undefined ? spec.parent : (specs[index - 1]?.uuid ?? null),
    role: spec.role ?? (index % 2 === 0 ? 'user' : 'assistant'),
    isMessage: spec.message ?? true,
    text: spec.text ?? `text of ${spec.uuid}`,
    timestamp: spec.at ?? 1000 + index,
  }));
}

function session(
  sessionId: string,
  entries: ChainEntry[],
  extra: Partial<FamilySession> = {},
): FamilySession {
  return {
    sessionId,
    title: `title ${sessionId}`,
    resumable: true,
    lastActive: Math.max(0, ...entries.map((entry) => entry.timestamp ?? 0)),
    entries,
    forkedFrom: null,
    ...extra,
  };
}

function record(
  sessionId: string,
  parentSessionId: string,
  forkPointUuid: string | null,
  createdAt: number,
): ForkRecord {
  return { sessionId, parentSessionId, forkPointUuid, createdAt };
}

/** The family's shape in a line per branch: key <- parent @ fork point, count, first message. */
function shape(family: ReturnType<typeof buildFamily>): string[] {
  return family.branches.map(
    (branch) =>
      `${branch.key} <- ${branch.parentKey ?? '-'} @ ${branch.forkPointUuid ?? '-'}: ${branch.messageCount} "${branch.firstMessage}"`,
  );
}

describe('one branch of a file, as it is shown', () => {
  it('is its chain and the dead ends off it that hold no message; another branch is left out', () => {
    // u1 a1 (a tool call) with a second call c2 whose result r2 is a dead end; r1 goes on to a2. Rewound to a2.
    const entries = chain(
      { uuid: 'u1' },
      { uuid: 'a1' },
      { uuid: 'c2', role: 'assistant', message: false },
      { uuid: 'r1', parent: 'a1', role: 'user', message: false },
      { uuid: 'r2', parent: 'c2', role: 'user', message: false },
      { uuid: 'a2', parent: 'r1', role: 'assistant' },
      { uuid: 'u3', role: 'user' },
      { uuid: 'a3', role: 'assistant' },
      { uuid: 'u4', parent: 'a2', role: 'user' },
      { uuid: 'a4', role: 'assistant' },
    );
    const view = (leaf: string) => [...(branchView(entries, leaf) ?? [])].sort();
    expect(view('a3')).toEqual(['a1', 'a2', 'a3', 'c2', 'r1', 'r2', 'u1', 'u3']);
    expect(view('a4')).toEqual(['a1', 'a2', 'a4', 'c2', 'r1', 'r2', 'u1', 'u4']);
    expect(branchView(entries, 'nowhere')).toBeNull();
  });
});

describe('in-file rewinds', () => {
  it('makes the chain that ends the file the session own branch, and every other leaf a read-only branch', () => {
    // u1 a1 u2 a2 (first try) | rewound to a1: u3 a3 (second try) | rewound to a2: u4 a4, the file's end.
    const entries = chain(
      { uuid: 'u1', at: 1 },
      { uuid: 'a1', at: 2 },
      { uuid: 'u2', at: 3 },
      { uuid: 'a2', at: 4 },
      { uuid: 'u3', parent: 'a1', role: 'user', at: 5 },
      { uuid: 'a3', role: 'assistant', at: 6 },
      { uuid: 'u4', parent: 'a2', role: 'user', at: 7 },
      { uuid: 'a4', role: 'assistant', at: 8 },
    );
    const family = buildFamily('s', [session('s', entries)], []);
    expect(family.rootKey).toBe('s');
    expect(shape(family)).toEqual(['s <- - @ -: 6 "text of u1"', 's#a3 <- s @ a1: 4 "text of u3"']);
    // u4 a4 continue the first try's chain (u1 a1 u2 a2): no branch of their own.
    expect(family.branches[1]).toMatchObject({
      sessionId: 's',
      leafUuid: 'a3',
      resumable: false,
      lastActive: 6,
      partedAt: 5,
    });
    expect(family.branches[0]).toMatchObject({ leafUuid: null, resumable: true, lastActive: 8, partedAt: 1 });
  });

  it('hangs a branch off the read-only branch it parts from, oldest leaves first', () => {
    const entries = chain(
      { uuid: 'u1' },
      { uuid: 'a1' },
      { uuid: 'x1', role: 'user' },
      { uuid: 'x2', role: 'assistant' },
      { uuid: 'y1', parent: 'x1', role: 'assistant' },
      { uuid: 'z1', parent: 'a1', role: 'user' },
      { uuid: 'z2', role: 'assistant' },
    );
    expect(shape(buildFamily('s', [session('s', entries)], []))).toEqual([
      's <- - @ -: 4 "text of u1"',
      's#x2 <- s @ a1: 4 "text of x1"',
      's#y1 <- s#x2 @ x1: 4 "text of y1"',
    ]);
  });

  it('counts tool results as entries of the chain but not as messages, and makes no branch of a dead end', () => {
    // Parallel tool calls: each result hangs off its own call, so the first result ends a chain.
    const entries = chain(
      { uuid: 'u1' },
      { uuid: 'call1', role: 'assistant', text: 'Bash {"command":"one"}' },
      { uuid: 'call2', role: 'assistant', message: false, text: 'Bash {"command":"two"}' },
      { uuid: 'result1', parent: 'call1', role: 'user', message: false, text: '' },
      { uuid: 'result2', parent: 'call2', role: 'user', message: false, text: '' },
      { uuid: 'a2', role: 'assistant', text: 'Both done.' },
    );
    const family = buildFamily('s', [session('s', entries)], []);
    expect(shape(family)).toEqual(['s <- - @ -: 3 "text of u1"']);
  });

  it('takes a parent the file does not hold to be the entry before', () => {
    const entries = chain({ uuid: 'u1' }, { uuid: 'a1', parent: 'left-out' }, { uuid: 'u2' }, { uuid: 'a2' });
    expect(shape(buildFamily('s', [session('s', entries)], []))).toEqual(['s <- - @ -: 4 "text of u1"']);
  });
});

describe('forks', () => {
  const parentEntries = chain(
    { uuid: 'u1', at: 10 },
    { uuid: 'a1', at: 11 },
    { uuid: 'u2', at: 12 },
    { uuid: 'a2', at: 13 },
  );
  /** A fork's file: the parent's entries up to the fork point, same uuids, then its own. */
  const forkEntries = chain(
    { uuid: 'u1', at: 10 },
    { uuid: 'a1', at: 11 },
    { uuid: 'f1', role: 'user', text: 'Try it  another\nway', at: 20 },
    { uuid: 'f2', role: 'assistant', at: 21 },
  );

  it("builds a family from Byre's records", () => {
    const family = buildFamily(
      'fork',
      [session('root', parentEntries), session('fork', forkEntries)],
      [record('fork', 'root', 'a1', 15)],
    );
    expect(family.rootKey).toBe('root');
    expect(shape(family)).toEqual([
      'root <- - @ -: 4 "text of u1"',
      'fork <- root @ a1: 4 "Try it another way"',
    ]);
    expect(family.branches[1]).toMatchObject({
      sessionId: 'fork',
      leafUuid: null,
      resumable: true,
      lastActive: 21,
      partedAt: 15,
    });
  });

  it("builds a family from the CLI's forkedFrom", () => {
    const family = buildFamily(
      'root',
      [
        session('root', parentEntries),
        session('fork', forkEntries, { forkedFrom: { sessionId: 'root', messageUuid: 'a1' } }),
      ],
      [],
    );
    expect(shape(family)).toEqual([
      'root <- - @ -: 4 "text of u1"',
      'fork <- root @ a1: 4 "Try it another way"',
    ]);
  });

  it('builds a fork of a fork, and orders branches by when they parted', () => {
    const second = chain(
      { uuid: 'u1', at: 10 },
      { uuid: 'g1', role: 'user', at: 30 },
      { uuid: 'g2', role: 'assistant', at: 31 },
    );
    const third = chain(
      { uuid: 'u1', at: 10 },
      { uuid: 'a1', at: 11 },
      { uuid: 'f1', role: 'user', at: 20 },
      { uuid: 'h1', role: 'assistant', at: 40 },
    );
    const family = buildFamily(
      'third',
      [
        session('third', third),
        session('second', second),
        session('fork', forkEntries),
        session('root', parentEntries),
      ],
      [
        record('second', 'root', 'u1', 25),
        record('fork', 'root', 'a1', 15),
        record('third', 'fork', 'f1', 35),
      ],
    );
    expect(shape(family)).toEqual([
      'root <- - @ -: 4 "text of u1"',
      'fork <- root @ a1: 4 "Try it another way"',
      'second <- root @ u1: 3 "text of g1"',
      'third <- fork @ f1: 4 "text of h1"',
    ]);
  });

  it('hangs a fork off the read-only branch that holds its fork point', () => {
    const rewound = chain(
      { uuid: 'u1' },
      { uuid: 'a1' },
      { uuid: 'old1', role: 'user' },
      { uuid: 'old2', role: 'assistant' },
      { uuid: 'new1', parent: 'a1', role: 'user' },
      { uuid: 'new2', role: 'assistant' },
    );
    const fork = chain(
      { uuid: 'u1' },
      { uuid: 'a1' },
      { uuid: 'old1' },
      { uuid: 'old2' },
      { uuid: 'k1', role: 'user' },
    );
    const family = buildFamily(
      'root',
      [session('root', rewound), session('fork', fork)],
      [record('fork', 'root', 'old2', 5000)],
    );
    expect(shape(family)).toEqual([
      'root <- - @ -: 4 "text of u1"',
      'root#old2 <- root @ a1: 4 "text of old1"',
      'fork <- root#old2 @ old2: 5 "text of k1"',
    ]);
  });

  it('counts the shared part from the parent when the fork file lacks it', () => {
    // Only Byre's transcripts of the fork are left: they hold what came after the fork point.
    const family = buildFamily(
      'fork',
      [
        session('root', parentEntries),
        session('fork', chain({ uuid: 'f1', text: 'again' }, { uuid: 'f2' }), { resumable: false }),
      ],
      [record('fork', 'root', 'a1', 15)],
    );
    expect(shape(family)).toEqual(['root <- - @ -: 4 "text of u1"', 'fork <- root @ a1: 4 "again"']);
    expect(family.branches[1]?.resumable).toBe(false);
  });

  it("prefers Byre's record to the CLI's forkedFrom", () => {
    const family = buildFamily(
      'fork',
      [
        session('root', parentEntries),
        session('other', chain({ uuid: 'o1' })),
        session('fork', forkEntries, { forkedFrom: { sessionId: 'other', messageUuid: 'o1' } }),
      ],
      [record('fork', 'root', 'a1', 15)],
    );
    expect(family.rootKey).toBe('root');
    expect(family.branches.map((branch) => branch.key)).toEqual(['root', 'fork']);
  });
});

describe('damaged links', () => {
  it('makes a session whose parent is unknown a root of its own', () => {
    const family = buildFamily(
      'fork',
      [
        session('fork', chain({ uuid: 'u1' }, { uuid: 'f1' }), {
          forkedFrom: { sessionId: 'gone', messageUuid: 'u1' },
        }),
      ],
      [record('fork', 'also-gone', 'u1', 1)],
    );
    expect(shape(family)).toEqual(['fork <- - @ -: 2 "text of u1"']);
  });

  it('cuts a cycle of forks at its smallest session id', () => {
    const sessions = [
      session('b', chain({ uuid: 'b1' })),
      session('a', chain({ uuid: 'a1' })),
      session('c', chain({ uuid: 'c1' })),
    ];
    const records = [record('a', 'b', null, 1), record('b', 'c', null, 2), record('c', 'a', null, 3)];
    const family = buildFamily('c', sessions, records);
    expect(family.rootKey).toBe('a');
    expect(shape(family)).toEqual([
      'a <- - @ -: 1 "text of a1"',
      'b <- c @ -: 1 "text of b1"',
      'c <- a @ -: 1 "text of c1"',
    ]);
  });

  it('never loops on entries whose parents point at each other, nor on a session forked from itself', () => {
    const entries = chain({ uuid: 'x', parent: 'y' }, { uuid: 'y', parent: 'x' });
    const family = buildFamily('s', [session('s', entries)], [record('s', 's', 'x', 1)]);
    expect(shape(family)).toEqual(['s <- - @ -: 2 "text of x"']);
  });

  it('gives every session of a family the same root', () => {
    const links = [
      { sessionId: 'a', forkedFromSessionId: null },
      { sessionId: 'b', forkedFromSessionId: 'a' },
      { sessionId: 'c', forkedFromSessionId: 'b' },
      { sessionId: 'd', forkedFromSessionId: 'nowhere' },
    ];
    const parents = sessionParents(links, []);
    expect(links.map((link) => familyRoot(parents, link.sessionId))).toEqual(['a', 'a', 'a', 'd']);
  });
});

describe('shortText', () => {
  it('gives one line, cut to 200 characters', () => {
    expect(shortText('  two\n\nlines ')).toBe('two lines');
    const cut = shortText('word '.repeat(100));
    expect(cut.length).toBeLessThanOrEqual(201);
    expect(cut.endsWith('…')).toBe(true);
  });
});
