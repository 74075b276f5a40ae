import { describe, expect, it } from 'vitest';
import { RecentOutput, waitsOnPerson } from './terminal-conversation';

describe('RecentOutput (what a window that opens a Terminal conversation is given to draw)', () => {
  it('keeps everything while it is short', () => {
    const recent = new RecentOutput(100);
    recent.push('one\r\n');
    recent.push('two\r\n');
    expect(recent.text()).toBe('one\r\ntwo\r\n');
  });

  it('keeps the last of a flood, from a line start, at most its size', () => {
    const recent = new RecentOutput(1_000);
    for (let n = 0; n < 10_000; n++) recent.push(`line ${String(n).padStart(5, '0')}\r\n`);
    const text = recent.text();
    expect(text.length).toBeLessThanOrEqual(1_000);
    expect(text.length).toBeGreaterThan(900);
    expect(text.startsWith('line ')).toBe(true);
    expect(text.endsWith('line 09999\r\n')).toBe(true);
  });

  it('cuts one piece larger than its size to its end', () => {
    const recent = new RecentOutput(50);
    recent.push(`${'x'.repeat(200)}\nlast line`);
    expect(recent.text()).toBe('last line');
  });
});

describe('waitsOnPerson (the Terminal tab says "needs you" for a question or a plan)', () => {
  it('says the question, or that a plan waits; other tools wait on no one', () => {
    expect(waitsOnPerson('AskUserQuestion', { questions: [{ question: 'Which database?' }] })).toBe(
      'Claude asks: Which database?',
    );
    expect(waitsOnPerson('AskUserQuestion', {})).toBe('Claude has a question for you');
    expect(waitsOnPerson('ExitPlanMode', { plan: '1. do it' })).toBe('Claude has a plan for you to approve');
    expect(waitsOnPerson('Bash', { command: 'ls' })).toBeNull();
    expect(waitsOnPerson(null, null)).toBeNull();
  });
});
