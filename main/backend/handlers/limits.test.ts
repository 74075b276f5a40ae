import { describe, expect, it } from 'vitest';
import { sessionToSend } from './limits';

const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';
const C = '00000000-0000-4000-8000-00000000000c';
const D = '00000000-0000-4000-8000-00000000000d';
const fork = (sessionId: string, parentSessionId: string, createdAt: number) => ({
  sessionId,
  parentSessionId,
  forkPointUuid: null,
  createdAt,
});

describe('where a kept message goes', () => {
  const send = { sessionId: A, createdAt: 100 };

  it('to its own session while a tab shows it, or none shows a branch made since', () => {
    expect(sessionToSend(send, [fork(B, A, 200)], new Set([A, B]))).toEqual({ sessionId: A });
    expect(sessionToSend(send, [fork(B, A, 50)], new Set([B]))).toEqual({ sessionId: A });
    expect(sessionToSend(send, [], new Set())).toEqual({ sessionId: A });
  });

  it('to the branch a rewind made since, however many rewinds deep', () => {
    expect(sessionToSend(send, [fork(B, A, 200)], new Set([B]))).toEqual({ sessionId: B });
    expect(sessionToSend(send, [fork(B, A, 200), fork(C, B, 300)], new Set([C]))).toEqual({ sessionId: C });
  });

  it('nowhere when two tabs show branches made since', () => {
    expect(sessionToSend(send, [fork(B, A, 200), fork(D, A, 250)], new Set([B, D]))).toEqual({
      refused: expect.stringContaining('more than one tab'),
    });
  });
});
