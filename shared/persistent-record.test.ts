import { describe, expect, it } from 'vitest';
import { editRecord, joinRecords, nodesNotShared, recordValues, withEntry } from './persistent-record';

function recordOf(count: number): Record<string, number> {
  const editor = editRecord<number>({});
  for (let i = 0; i < count; i++) editor.set(`a:msg_${i}`, i);
  return editor.done();
}

describe('a persistent record', () => {
  it('reads like a plain object, keys in the order they were first set', () => {
    const editor = editRecord<string>({ b: 'one' });
    editor.set('a', 'two');
    editor.set('b', 'three');
    const record = editor.done();
    expect(record.b).toBe('three');
    expect('a' in record).toBe(true);
    expect(record.missing).toBeUndefined();
    expect(Object.keys(record)).toEqual(['b', 'a']);
    expect(Object.values(record)).toEqual(['three', 'two']);
    expect(recordValues(record)).toEqual(['three', 'two']);
    expect({ ...record }).toEqual({ b: 'three', a: 'two' });
    expect(record).toEqual({ a: 'two', b: 'three' });
    expect(JSON.stringify(record)).toBe('{"b":"three","a":"two"}');
  });

  it('cannot be written to: a change makes a new version and leaves the old one as it was', () => {
    const before = recordOf(1_000);
    expect(() => {
      (before as Record<string, number>)['a:msg_1'] = 7;
    }).toThrow(TypeError);
    const after = withEntry(before, 'a:msg_1', 7);
    expect(after['a:msg_1']).toBe(7);
    expect(before['a:msg_1']).toBe(1);
    expect(withEntry(after, 'a:msg_1', 7)).toBe(after);
    expect(Object.keys(after)).toHaveLength(1_000);
  });

  it('keeps every key apart, even among many (and through hash collisions deep in the trie)', () => {
    const record = recordOf(50_000);
    for (let i = 0; i < 50_000; i += 997) expect(record[`a:msg_${i}`]).toBe(i);
    expect(Object.keys(record)).toHaveLength(50_000);
  });

  it('copies only the path to the key that changed, however big the record', () => {
    const cost = (size: number) => {
      const before = recordOf(size);
      return nodesNotShared(before, withEntry(before, 'a:msg_5', -1));
    };
    // The entry and the branches above it: one more branch for each 32 times as many keys.
    const small = cost(100) ?? NaN;
    expect(small).toBeGreaterThan(0);
    expect(small).toBeLessThanOrEqual(4);
    expect(cost(100_000)).toBeLessThanOrEqual(small + 2);
  });

  it('joins a page in front of what is loaded as a spread would, without copying what is loaded', () => {
    const later = recordOf(10_000);
    const earlier = editRecord<number>({ 'a:msg_5': -5, 'a:old': -1 }).done();
    const joined = joinRecords(earlier, later);
    expect(joined['a:old']).toBe(-1);
    expect(joined['a:msg_5']).toBe(5);
    expect(Object.keys(joined)).toHaveLength(10_001);
    expect(nodesNotShared(later, joined)).toBeLessThanOrEqual(6);
  });

  it('copies a node once per edit, however many sets touch it', () => {
    const before = recordOf(10_000);
    const editor = editRecord(before);
    for (let i = 0; i < 100; i++) editor.set('a:msg_5', i);
    expect(nodesNotShared(before, editor.done())).toBeLessThanOrEqual(4);
    expect(() => editor.set('a:msg_5', 0)).toThrow(/done/);
  });
});
