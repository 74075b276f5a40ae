/**
 * A record of values by string key whose new versions share everything that did not change with the old
 * ones: a hash array mapped trie, where setting a key copies only the few small nodes on the path to it. A
 * new version of a record of 100,000 messages costs about as much as one of 100.
 *
 * It reads like a plain object (`record[key]`, `key in record`, `Object.keys`, `Object.values`, spread; keys
 * in the order they were first set), so code that reads a conversation does not need to know. It cannot be
 * written to directly (an assignment throws): `editRecord` makes the next version. Being a Proxy, it cannot
 * be frozen or passed to structuredClone either; `{ ...record }` is a plain copy.
 */

const BITS = 5;
const MASK = (1 << BITS) - 1;

/** Who may change a node in place: nodes made during one edit belong to it, so a batch copies each once. */
type Owner = object;

interface Entry<V> {
  readonly kind: 'entry';
  readonly key: string;
  readonly hash: number;
  readonly value: V;
  /** When the key was first set: the order of the record's keys. */
  readonly seq: number;
}

/** Entries whose keys have the same 32-bit hash. */
interface Collision<V> {
  readonly kind: 'collision';
  readonly hash: number;
  readonly entries: readonly Entry<V>[];
}

interface Branch<V> {
  readonly kind: 'branch';
  readonly owner: Owner | null;
  /** Indexed by 5 bits of the hash; holes where nothing is. */
  readonly slots: (Node<V> | undefined)[];
}

type Node<V> = Entry<V> | Collision<V> | Branch<V>;

/** FNV-1a, then MurmurHash3's finalizer: the trie indexes by the low bits first, which FNV mixes poorly. */
function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}

function find<V>(root: Branch<V>, key: string): Entry<V> | undefined {
  const hash = hashOf(key);
  let node: Node<V> | undefined = root;
  for (let shift = 0; node; shift += BITS) {
    if (node.kind === 'entry') return node.key === key ? node : undefined;
    if (node.kind === 'collision') return node.entries.find((entry) => entry.key === key);
    node = node.slots[(hash >>> shift) & MASK];
  }
  return undefined;
}

/** A branch holding two entries (or collisions) whose hashes first differ at or after `shift`. */
function split<V>(a: Entry<V> | Collision<V>, b: Entry<V>, shift: number, owner: Owner): Node<V> {
  if (a.hash === b.hash) {
    const entries = a.kind === 'entry' ? [a, b] : [...a.entries, b];
    return { kind: 'collision', hash: b.hash, entries };
  }
  const branch: Branch<V> = { kind: 'branch', owner, slots: [] };
  const at = (a.hash >>> shift) & MASK;
  const bt = (b.hash >>> shift) & MASK;
  if (at === bt) branch.slots[at] = split(a, b, shift + BITS, owner);
  else {
    branch.slots[at] = a;
    branch.slots[bt] = b;
  }
  return branch;
}

/** A new entry's place in the key order: that of the entry it replaces, if any, or the next. */
type Seq = (existing: Entry<unknown> | undefined) => number;

/** The branch with `key` set: the same branch changed in place if `owner` made it, else a copy. */
function setIn<V>(
  branch: Branch<V>,
  shift: number,
  key: string,
  hash: number,
  value: V,
  seq: Seq,
  owner: Owner,
): Branch<V> {
  const at = (hash >>> shift) & MASK;
  const slot = branch.slots[at];
  let next: Node<V>;
  if (!slot) {
    next = { kind: 'entry', key, hash, value, seq: seq(undefined) };
  } else if (slot.kind === 'branch') {
    next = setIn(slot, shift + BITS, key, hash, value, seq, owner);
  } else if (slot.kind === 'entry' && slot.key === key) {
    if (slot.value === value) return branch;
    next = { ...slot, value };
  } else if (slot.kind === 'collision' && slot.hash === hash) {
    const index = slot.entries.findIndex((entry) => entry.key === key);
    const existing = slot.entries[index];
    const entry: Entry<V> = { kind: 'entry', key, hash, value, seq: seq(existing) };
    const entries = slot.entries.slice();
    if (existing) entries[index] = entry;
    else entries.push(entry);
    next = { ...slot, entries };
  } else {
    next = split(slot, { kind: 'entry', key, hash, value, seq: seq(undefined) }, shift + BITS, owner);
  }
  if (next === slot) return branch;
  const target =
    branch.owner === owner ? branch : { kind: 'branch' as const, owner, slots: branch.slots.slice() };
  target.slots[at] = next;
  return target;
}

function collect<V>(node: Node<V> | undefined, into: Entry<V>[]): void {
  if (!node) return;
  if (node.kind === 'entry') into.push(node);
  else if (node.kind === 'collision') into.push(...node.entries);
  else for (const slot of node.slots) collect(slot, into);
}

/** One version of a record: the trie behind the object its readers see. */
class Version<V> implements ProxyHandler<Record<string, V>> {
  /** The record's entries in key order, worked out the first time something lists them. */
  private listed: Entry<V>[] | null = null;

  constructor(
    public root: Branch<V>,
    public size: number,
    public nextSeq: number,
  ) {}

  entries(): Entry<V>[] {
    if (!this.listed) {
      const found: Entry<V>[] = [];
      collect(this.root, found);
      this.listed = found.sort((a, b) => a.seq - b.seq);
    }
    return this.listed;
  }

  changed(): void {
    this.listed = null;
  }

  get(target: Record<string, V>, key: string | symbol, receiver: unknown): unknown {
    const entry = typeof key === 'string' ? find(this.root, key) : undefined;
    return entry ? entry.value : Reflect.get(target, key, receiver);
  }

  has(target: Record<string, V>, key: string | symbol): boolean {
    return (typeof key === 'string' && find(this.root, key) !== undefined) || Reflect.has(target, key);
  }

  ownKeys(): string[] {
    return this.entries().map((entry) => entry.key);
  }

  getOwnPropertyDescriptor(_target: Record<string, V>, key: string | symbol): PropertyDescriptor | undefined {
    const entry = typeof key === 'string' ? find(this.root, key) : undefined;
    return entry && { value: entry.value, writable: false, enumerable: true, configurable: true };
  }

  set(): boolean {
    return false;
  }

  defineProperty(): boolean {
    return false;
  }

  deleteProperty(): boolean {
    return false;
  }

  preventExtensions(): boolean {
    return false;
  }
}

const versions = new WeakMap<object, Version<unknown>>();

function publish<V>(version: Version<V>): Record<string, V> {
  const record = new Proxy<Record<string, V>>({}, version);
  versions.set(record, version as Version<unknown>);
  return record;
}

function versionOf<V>(record: Readonly<Record<string, V>>): Version<V> | undefined {
  return versions.get(record) as Version<V> | undefined;
}

/** The next version of a record, made by `set`s. Until `done`, `record` shows every `set` so far. */
export interface RecordEditor<V> {
  readonly record: Record<string, V>;
  set(key: string, value: V): void;
  done(): Record<string, V>;
}

/**
 * Starts the next version of `record`. A plain object is copied into a trie once (O(n)); after that each
 * `set` costs O(log n), and nodes made during the edit are changed in place rather than copied again.
 */
export function editRecord<V>(record: Readonly<Record<string, V>>): RecordEditor<V> {
  const base = versionOf(record);
  const version = base
    ? new Version(base.root, base.size, base.nextSeq)
    : new Version<V>({ kind: 'branch', owner: null, slots: [] }, 0, 0);
  let owner: Owner | null = {};
  const seq: Seq = (existing) => {
    if (existing) return existing.seq;
    version.size += 1;
    return version.nextSeq++;
  };
  const editor: RecordEditor<V> = {
    record: publish(version),
    set(key, value) {
      if (!owner) throw new Error('This version of the record is done; edit it again for the next.');
      version.root = setIn(version.root, 0, key, hashOf(key), value, seq, owner);
      version.changed();
    },
    done() {
      owner = null;
      return editor.record;
    },
  };
  if (!base) for (const [key, value] of Object.entries(record)) editor.set(key, value);
  return editor;
}

/** The record with one entry set; the record itself when it already holds that value there. */
export function withEntry<V>(record: Readonly<Record<string, V>>, key: string, value: V): Record<string, V> {
  if (record[key] === value) return record;
  const editor = editRecord(record);
  editor.set(key, value);
  return editor.done();
}

/**
 * `{ ...earlier, ...later }` as a persistent record, made from `later` by adding what only `earlier` has: it
 * costs the size of `earlier`, not of both (a spread reads every entry through the record's Proxy). For a
 * page of a conversation put in front of what is loaded. Keys: `later`'s, then `earlier`'s.
 */
export function joinRecords<V>(
  earlier: Readonly<Record<string, V>>,
  later: Readonly<Record<string, V>>,
): Record<string, V> {
  const editor = editRecord(later);
  for (const [key, value] of Object.entries(earlier)) if (!(key in later)) editor.set(key, value);
  return editor.done();
}

/** The record's values in key order (without going through the object its readers see). */
export function recordValues<V>(record: Readonly<Record<string, V>>): V[] {
  return (
    versionOf(record)
      ?.entries()
      .map((entry) => entry.value) ?? Object.values(record)
  );
}

/**
 * How many trie nodes of `next` are not shared with `previous`: what making one from the other cost. Null
 * when either is not a record made here.
 */
export function nodesNotShared<V>(
  previous: Readonly<Record<string, V>>,
  next: Readonly<Record<string, V>>,
): number | null {
  const before = versionOf(previous);
  const after = versionOf(next);
  if (!before || !after) return null;
  // A node that was copied sits where the node it was copied from sat: compare the two tries side by side.
  const count = (old: Node<V> | undefined, node: Node<V> | undefined): number => {
    if (!node || node === old) return 0;
    if (node.kind !== 'branch') return 1;
    const oldSlots = old?.kind === 'branch' ? old.slots : [];
    return node.slots.reduce((sum, slot, at) => sum + count(oldSlots[at], slot), 1);
  };
  return count(before.root, after.root);
}
