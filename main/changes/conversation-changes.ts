/**
 * One open conversation's Changes: the snapshot it started from, one more at the end of each turn, what each
 * turn changed and which tool did it, and reverts as steps of their own (issue 27). The conversation hands
 * it the CLI's lines and its prompts; the Changes channels and Rewind read and act through it.
 *
 * All its git work runs in ONE queue, one piece at a time, so a revert never interleaves with a turn's
 * snapshot and two snapshots never share the private index at once. Git runs asynchronously (git.ts), so
 * the queue never blocks main's event loop. Nothing here can break the conversation: when snapshots cannot
 * be taken (git missing, too many files, a store that cannot be written) Changes are off, with the reason.
 */
import type {
  ChangeStep,
  ChangesState,
  ChangesView,
  ConversationEvent,
  FileDiff,
  RevertPreview,
  RevertTarget,
} from '../../shared/ipc';
import type { CliMessage } from '../../shared/protocol';
import { causesOf, toolCalls, toolUsesOf, workTreePaths, type ToolUse } from './attribution';
import { loadRecord, removeRecord, saveRecord, type ChangesRecord, type StoredStep } from './record';
import { openSnapshotStore, type Snapshot, type SnapshotChange, type SnapshotStore } from './snapshot-store';
import { offReason } from './off-reason';
import { SnapshotsOff } from './snapshots';
import { inWorkTree } from './work-tree-lock';
import { firstWords, revertActions, revertPlan, stepOf, touched } from './steps';

export interface ChangesOptions {
  /** Where snapshots are kept: private indexes, and private repositories of folders outside one. */
  store: string;
  /** Where the conversations' records are (record.ts). */
  records: string;
  /** Opens a folder's snapshots; Snapshots.open unless a test says otherwise (or a host's, over ssh). */
  open?: (folder: string, store: string) => Promise<SnapshotStore>;
  /** The host the folder and the store are on, for a conversation on another host. */
  host?: string;
}

/**
 * A worktree conversation's base (issue 28): the branch it was made from (or the commit, for a detached
 * HEAD's), and the commit where its branch parted from it, which the `base` scope compares the folder with.
 */
export interface ChangesBase {
  branch: string;
  commit: string;
}

/** What the panel compares: the conversation's own changes, or everything its worktree holds against its base. */
export type ChangesAgainst = { scope: 'conversation' } | { scope: 'base'; base: ChangesBase };

interface Ready {
  snapshots: SnapshotStore;
  record: ChangesRecord;
  toWorkTree: (path: string) => string | null;
}

export class ConversationChanges {
  private state: ChangesState = { kind: 'starting' };
  private readonly started: Promise<Ready | null>;
  private queue: Promise<unknown>;
  /** The tools used in the turn running now, read when it ends. */
  private toolUses: ToolUse[] = [];
  private readonly prompts = new Map<string, string>();
  /** Whether this conversation began its record (rather than found it): only then may `discard` remove it. */
  private madeRecord = false;
  /** The first snapshot could not be taken (no git, a store it cannot write): no snapshot will be. */
  private unavailable = false;
  /** A prompt was sent before the first snapshot was done: that snapshot may hold some of its turn. */
  private racedFirstTurn = false;

  private constructor(
    private readonly options: ChangesOptions,
    private readonly folder: string,
    /** The CLI session id the conversation started with: its record's name and its refs'. */
    readonly key: string,
    private readonly emit: (event: ConversationEvent) => void,
  ) {
    this.started = this.start().catch((error: unknown) => {
      this.state = { kind: 'off', reason: offReason(error, options.store) };
      this.unavailable = true;
      return null;
    });
    // The first job: every other waits for it.
    this.queue = this.started;
  }

  /** Starts taking the conversation's first snapshot (or finds its record); `ready` says when it is done. */
  static begin(
    options: ChangesOptions,
    conversation: { folder: string; key: string; emit: (event: ConversationEvent) => void },
  ): ConversationChanges {
    return new ConversationChanges(options, conversation.folder, conversation.key, conversation.emit);
  }

  /** Resolves once the first snapshot is taken or Changes are off; never rejects. */
  async ready(): Promise<void> {
    await this.started;
  }

  /**
   * `ready`, or `ms` at most: a folder's first snapshot can take long (a big folder outside a repository),
   * and the conversation should not wait on it past that. A turn that starts before it is done is noted.
   */
  readyWithin(ms: number): Promise<void> {
    return atMost(this.started, ms);
  }

  private async start(): Promise<Ready> {
    const open = this.options.open ?? openSnapshotStore;
    const snapshots = await open(this.folder, this.options.store);
    return inWorkTree(workTreeKey(snapshots), () => this.startIn(snapshots));
  }

  private async startIn(snapshots: SnapshotStore): Promise<Ready> {
    const warn = (message: string) => this.emit({ kind: 'warning', message });
    let record = await loadRecord(this.options.records, this.key, warn);
    if (record && !(await snapshots.has(record.start))) {
      // Its snapshots went (the folder became a repository, or git's gc took them): count from now.
      warn(
        'The Changes panel’s earlier snapshots of this conversation are gone; it counts changes from now on.',
      );
      record = null;
    }
    if (!record) {
      const start = await snapshots.take(this.key, 'start', null);
      record = {
        version: 1,
        key: this.key,
        folder: this.folder,
        store: this.options.store,
        ...(this.options.host ? { host: this.options.host } : {}),
        start: start.commit,
        turns: 0,
        steps: [],
        updatedAt: Date.now(),
      };
      await saveRecord(this.options.records, record);
      this.madeRecord = true;
    }
    this.state = { kind: 'on' };
    return {
      snapshots,
      record,
      toWorkTree: workTreePaths(snapshots.workTree, this.folder, snapshots.where !== null),
    };
  }

  /**
   * For a conversation whose CLI never started (a folder to trust first, say): the record and snapshot it
   * began go, rather than wait for retention. One it found (a resumed conversation's) is kept.
   */
  discard(): void {
    void this.enqueue(async () => {
      const ready = await this.started;
      if (!ready || !this.madeRecord) return;
      await ready.snapshots.forget(this.key);
      await removeRecord(this.options.records, this.key);
    }).catch((error: unknown) =>
      console.error('Byre: a snapshot left by a conversation that did not start:', error),
    );
  }

  /**
   * Before a prompt is sent while no turn runs: what changed in the folder since the last snapshot (by
   * hand, by another program) becomes a step of its own, so that the turn's changes are only its own.
   * Resolves once that is done, failed or off, or after `ms` at most (the snapshot goes on); never rejects.
   */
  beforeTurn(ms: number): Promise<void> {
    if (this.unavailable) return Promise.resolve();
    return atMost(
      this.enqueue(() => this.outside()).catch((error: unknown) => this.failed(error)),
      ms,
    );
  }

  private async outside(): Promise<void> {
    const ready = await this.readyOrThrow();
    const { snapshots, record } = ready;
    const now = await this.now(ready);
    if (!now.live) return;
    // From what Byre knew: a hand edit a revert left as it was counts too.
    const known = { commit: this.known(record), ref: '' };
    const changes = await snapshots.diff(known.commit, now.tree);
    if (changes.length === 0) return;
    const number = record.steps.length + 1;
    const kept = await snapshots.keep(this.key, `step-${number}`, now.tree, known);
    this.store(ready, {
      step: { kind: 'outside', step: number, at: Date.now(), files: changes.length },
      before: known.commit,
      after: kept.commit,
      files: touched(changes).map((path) => ({ path, causes: [{ tool: null, command: null }] })),
    });
    await saveRecord(this.options.records, record);
    this.emit({ kind: 'changes', steps: record.steps.length });
  }

  /** The prompt a turn will answer, for naming the turn by its first words. */
  notePrompt(uuid: string, text: string): void {
    this.prompts.set(uuid, text);
    if (this.state.kind === 'starting') this.racedFirstTurn = true;
  }

  /**
   * Every CLI line of the conversation: tool calls are kept, and a turn's result queues its snapshot, at
   * once, so whatever is asked after the result comes waits for that snapshot. For a result: the snapshot
   * taken (or failed), to hold the result back until the folder as the turn left it is kept; else null.
   */
  note(message: CliMessage, settles: string | undefined): Promise<void> | null {
    // Off for good (no git, no store); off past a bound still tries each turn, in case it is within again.
    if (this.unavailable) return null;
    if (message.type === 'assistant') {
      for (const use of toolUsesOf(message)) this.noteToolUse(use);
      return null;
    }
    if (message.type !== 'result' || settles === undefined) return null;
    return this.endTurn(settles);
  }

  /** A tool the turn running now used (a Terminal conversation hears of it from its PreToolUse hook). */
  noteToolUse(use: ToolUse): void {
    if (!this.unavailable) this.toolUses.push(use);
  }

  /**
   * The turn answering the prompt `uuid` ended: its snapshot is queued at once, so that whatever is asked
   * after it waits for it. Resolves when it is taken (or failed); never rejects.
   */
  endTurn(uuid: string): Promise<void> {
    if (this.unavailable) return Promise.resolve();
    const uses = this.toolUses;
    this.toolUses = [];
    const prompt = this.prompts.get(uuid) ?? '';
    this.prompts.delete(uuid);
    return this.enqueue(() => this.turnEnded(uuid, prompt, uses)).catch((error: unknown) =>
      this.failed(error),
    );
  }

  private async turnEnded(uuid: string, prompt: string, uses: ToolUse[]): Promise<void> {
    const ready = await this.readyOrThrow();
    const { snapshots, record } = ready;
    const calls = toolCalls(uses, ready.toWorkTree);
    const number = record.steps.length + 1;
    const before = this.last(record);
    const after = await snapshots.take(this.key, `step-${number}`, before);
    // Within the bounds again (what passed them ignored, or gone): on again.
    if (this.state.kind === 'off') this.state = { kind: 'on' };
    const changes = await snapshots.diff(before.commit, after.commit);
    const files = touched(changes).map((path) => ({ path, causes: causesOf(path, calls) }));
    record.turns += 1;
    this.store(ready, {
      step: {
        kind: 'turn',
        step: number,
        turn: record.turns,
        prompt: firstWords(prompt),
        uuid,
        at: Date.now(),
        files: changes.length,
      },
      before: before.commit,
      after: after.commit,
      files,
    });
    await saveRecord(this.options.records, record);
    this.emit({ kind: 'changes', steps: record.steps.length });
  }

  /** What a revert to `source` would do to `paths` now, each flagged if changed since the last snapshot. */
  private async actions(
    ready: Ready,
    source: string,
    paths: string[],
    outside: ReadonlySet<string>,
  ): Promise<RevertPreview['files']> {
    const { snapshots, record } = ready;
    const now = await this.now(ready);
    if (!now.live) {
      throw new SnapshotsOff(
        `${this.offReason()} Without a snapshot of the folder as it is, Byre cannot tell what a revert would overwrite, so it reverts nothing.`,
      );
    }
    const since = await snapshots.diff(this.known(record), now.tree);
    return revertActions(await snapshots.diff(source, now.tree), paths, since, outside);
  }

  private store(ready: Ready, step: StoredStep): void {
    ready.record.steps.push(step);
    ready.record.updatedAt = Date.now();
  }

  /** A snapshot that failed turns Changes off when it can never work; else the user hears of it once. */
  private failed(error: unknown): void {
    const reason = offReason(error, this.options.store);
    if (error instanceof SnapshotsOff) this.state = { kind: 'off', reason };
    else this.emit({ kind: 'warning', message: `The Changes panel missed a snapshot: ${reason}` });
  }

  /**
   * The folder as Byre last knew it, what "changed since the last turn" is counted from: the last step's
   * end, or for a revert the tree before it with only what it wrote changed.
   */
  private known(record: ChangesRecord): string {
    const last = record.steps.at(-1);
    return last?.baseline ?? last?.after ?? record.start;
  }

  /**
   * The folder as it is now, as a tree; past the snapshots' bounds (a node_modules install, say), the last
   * snapshot instead, not `live`, with Changes off and saying why. Within them again (the folder ignored,
   * or gone), Changes are on again.
   */
  private async now(ready: Ready): Promise<{ tree: string; unreadable: string[]; live: boolean }> {
    try {
      const now = await ready.snapshots.current();
      if (this.state.kind === 'off') this.state = { kind: 'on' };
      return { ...now, live: true };
    } catch (error) {
      if (!(error instanceof SnapshotsOff)) throw error;
      this.state = { kind: 'off', reason: error.message };
      return { tree: this.last(ready.record).commit, unreadable: [], live: false };
    }
  }

  private offReason(): string {
    return this.state.kind === 'off' ? this.state.reason : '';
  }

  /** The conversation's last snapshot: the end of its last step, or its start. */
  private last(record: ChangesRecord): Snapshot {
    const last = record.steps.at(-1);
    return { commit: last?.after ?? record.start, ref: '' };
  }

  private async readyOrThrow(): Promise<Ready> {
    const ready = await this.started;
    if (!ready) throw new Error(this.state.kind === 'off' ? this.state.reason : 'Changes are off.');
    return ready;
  }

  /** Runs `work` after everything queued before it, and after any other conversation's git work in the same work tree. */
  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const done = this.queue.then(async () => {
      const ready = await this.started;
      return ready ? inWorkTree(workTreeKey(ready.snapshots), work) : work();
    });
    this.queue = done.catch(() => undefined);
    return done;
  }

  /**
   * What the Changes panel shows: everything since the start (`step` null), or what one step changed; or,
   * against a worktree's base, everything between where its branch parted from the base and the folder now,
   * committed on the branch or not (`step` is then not used). A worktree conversation's view names its base
   * in both scopes (`base`, from `worktree`), and says which scope it is.
   */
  view(
    asked: number | null,
    against: ChangesAgainst = { scope: 'conversation' },
    worktree: ChangesBase | null = against.scope === 'base' ? against.base : null,
  ): Promise<ChangesView> {
    const step = against.scope === 'base' ? null : asked;
    const named = worktree ? { base: worktree, scope: against.scope } : {};
    return this.enqueue(async () => {
      const ready = await this.started;
      if (!ready) {
        return {
          state: this.state,
          root: this.folder,
          inRepository: false,
          repositoryState: null,
          steps: [],
          step,
          files: [],
          notes: [],
          ...named,
        };
      }
      const { snapshots, record } = ready;
      // What git says of the repository and its ignored files is read while the folder is: they read the
      // index, which a snapshot replaces whole (a rename), never write it.
      const [now, repositoryState, ignored] = await Promise.all([
        this.now(ready),
        snapshots.repositoryState(),
        snapshots.ignoredNote(),
      ]);
      const shown = step === null ? null : stepOf(record, step);
      // One git job at a time in a work tree (the store's promise); these two are mostly kept already.
      const changes = shown
        ? await snapshots.diff(shown.before, shown.after)
        : await snapshots.diff(against.scope === 'base' ? against.base.commit : record.start, now.tree);
      const since = new Set(touched(await snapshots.diff(this.known(record), now.tree)));
      // Each step's files by path: a thousand files are matched to their steps in one pass each.
      const stepFiles = (shown ? [shown] : record.steps).map((stored) => ({
        step: stored.step.step,
        files: new Map(stored.files.map((file) => [file.path, file])),
      }));
      const notes = [
        ...(this.racedFirstTurn
          ? [
              'The first turn began before the folder’s first snapshot was done: what that turn changed early on may count as the folder’s start.',
            ]
          : []),
        ...(ignored ? [ignored] : []),
        ...(now.unreadable.length > 0
          ? [`Not counted, since they could not be read: ${now.unreadable.join(', ')}.`]
          : []),
      ];
      return {
        state: this.state,
        root: snapshots.workTree,
        inRepository: snapshots.inRepository,
        repositoryState,
        steps: record.steps.map((stored) => stored.step),
        step,
        files: changes.map((change) => ({
          path: change.path,
          from: change.from,
          status: change.status,
          kind: change.kind,
          added: change.added,
          removed: change.removed,
          steps: stepFiles.flatMap(({ step: number, files }) => {
            const file = files.get(change.path);
            return file ? [{ step: number, causes: file.causes }] : [];
          }),
          changedSince: since.has(change.path) || (change.from !== null && since.has(change.from)),
        })),
        notes,
        ...named,
      };
    });
  }

  /** One file's diff, between the same two ends as `view(step, against)`. */
  diff(
    asked: number | null,
    path: string,
    against: ChangesAgainst = { scope: 'conversation' },
  ): Promise<FileDiff> {
    const step = against.scope === 'base' ? null : asked;
    return this.enqueue(async () => {
      const ready = await this.readyOrThrow();
      const { snapshots, record } = ready;
      const shown = step === null ? null : stepOf(record, step);
      const [before, after] = shown
        ? [shown.before, shown.after]
        : [against.scope === 'base' ? against.base.commit : record.start, (await this.now(ready)).tree];
      // A renamed file's lines are read from where it was.
      const change = (await snapshots.diff(before, after)).find((entry) => entry.path === path);
      return snapshots.fileDiff(before, after, path, change?.from ?? path);
    });
  }

  previewRevert(target: RevertTarget): Promise<RevertPreview> {
    return this.enqueue(async () => {
      const ready = await this.readyOrThrow();
      const plan = revertPlan(ready.record, target);
      return { to: plan.to, files: await this.actions(ready, plan.source, plan.paths, plan.outside) };
    });
  }

  /**
   * Reverts as a step of its own: a snapshot first (what `undo` goes back to, hand edits included), the
   * restore, then another. A file changed since the last snapshot is left unless `overwriteChanged`.
   */
  revert(
    target: RevertTarget,
    overwriteChanged: boolean,
  ): Promise<{ step: ChangeStep | null; kept: string[] }> {
    return this.enqueue(async () => {
      const ready = await this.readyOrThrow();
      const plan = revertPlan(ready.record, target);
      const actions = await this.actions(ready, plan.source, plan.paths, plan.outside);
      const kept = overwriteChanged
        ? []
        : actions.filter((file) => file.changedSince).map((file) => file.path);
      const paths = actions.map((file) => file.path).filter((path) => !kept.includes(path));
      // Nothing left to write: no step, and the files kept say why.
      if (paths.length === 0) return { step: null, kept };
      const step = await this.restoreAsStep(ready, plan.source, paths, (number, files) =>
        target.kind === 'undo'
          ? { kind: 'undo', step: number, undoes: target.step, paths, at: Date.now(), files }
          : { kind: 'revert', step: number, to: plan.to, paths, at: Date.now(), files, undone: false },
      );
      if (target.kind === 'undo') {
        const undone = stepOf(ready.record, target.step);
        if (undone.step.kind === 'revert') undone.step.undone = true;
        await saveRecord(this.options.records, ready.record);
      }
      return { step, kept };
    });
  }

  /**
   * Restores `paths` to `source` between two snapshots and records it. When the restore fails (a folder
   * that cannot be written), nothing is recorded and the error names the file.
   */
  private async restoreAsStep(
    ready: Ready,
    source: string,
    paths: string[],
    describe: (step: number, files: number) => ChangeStep,
    alsoRestore?: () => Promise<void>,
  ): Promise<ChangeStep> {
    const { snapshots, record } = ready;
    const number = record.steps.length + 1;
    const known = this.known(record);
    const before = await snapshots.take(this.key, `step-${number}-before`, this.last(record));
    let failure: unknown = null;
    try {
      await alsoRestore?.();
      await snapshots.restore(source, paths);
    } catch (error) {
      failure = error;
    }
    const after = await snapshots.take(this.key, `step-${number}`, before);
    const changes = await snapshots.diff(before.commit, after.commit);
    // Failed before it wrote anything: nothing happened, and nothing is recorded.
    if (failure !== null && changes.length === 0) throw failure;
    const written = touched(changes);
    const step = describe(number, changes.length);
    this.store(ready, {
      step,
      before: before.commit,
      after: after.commit,
      baseline: (
        await snapshots.keep(this.key, `step-${number}-known`, await snapshots.compose(known, after, written))
      ).commit,
      files: written.map((path) => ({ path, causes: [] })),
    });
    await saveRecord(this.options.records, record);
    this.emit({ kind: 'changes', steps: record.steps.length });
    if (failure !== null) {
      // Failed part way: what it did write is a step of its own, which can be undone.
      const why = failure instanceof Error ? failure.message : String(failure);
      throw new Error(`${why} The files it did change are step ${number}, which can be undone.`, {
        cause: failure,
      });
    }
    return step;
  }

  /**
   * For Rewind: the files the conversation's steps from the turn of prompt `uuid` on changed, that differ
   * now from the snapshot before that turn. Null when Changes are off or the turn is not on record.
   */
  rewindPlan(uuid: string): Promise<RewindPlan | null> {
    return this.enqueue(async () => {
      const ready = await this.started;
      if (!ready) return null;
      const { snapshots, record } = ready;
      const from = record.steps.findIndex(
        (stored) => stored.step.kind === 'turn' && stored.step.uuid === uuid,
      );
      const first = record.steps[from];
      if (!first || first.step.kind !== 'turn') return null;
      // What the conversation changed: by a tool of a turn (a file tool, or a command), or by a revert. What
      // changed outside it, or no tool of its turn can have changed (by hand, another program), is the
      // user's to keep.
      const touchedSince = new Set(
        record.steps
          .slice(from)
          .flatMap((stored) =>
            stored.files
              .filter((file) =>
                stored.step.kind === 'turn'
                  ? file.causes.some((cause) => cause.tool !== null)
                  : stored.step.kind !== 'outside',
              )
              .map((file) => file.path),
          ),
      );
      const now = await this.now(ready);
      // Past the bounds, Byre cannot say what the folder is now: the CLI's checkpoints alone.
      if (!now.live) return null;
      const changes = (await snapshots.diff(first.before, now.tree)).filter((change) =>
        touched([change]).some((path) => touchedSince.has(path)),
      );
      return {
        source: first.before,
        turn: first.step.turn,
        workTree: snapshots.workTree,
        changes,
        toWorkTree: ready.toWorkTree,
      };
    });
  }

  /** Rewind's restore, as a revert step: the CLI's for its files (`cli`), then the snapshot's for `paths`. */
  rewindRestore(plan: RewindPlan, paths: string[], cli: () => Promise<void>): Promise<ChangeStep> {
    return this.enqueue(async () => {
      const ready = await this.readyOrThrow();
      const to = `the start of turn ${plan.turn}, by Rewind`;
      return this.restoreAsStep(
        ready,
        plan.source,
        paths,
        (number, files) => ({
          kind: 'revert',
          step: number,
          to,
          paths,
          at: Date.now(),
          files,
          undone: false,
        }),
        cli,
      );
    });
  }
}

export interface RewindPlan {
  source: string;
  turn: number;
  workTree: string;
  changes: SnapshotChange[];
  toWorkTree: (path: string) => string | null;
}

/** Resolves when `work` settles, or after `ms`, whichever is first. */
export async function atMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work.catch(() => undefined),
    new Promise((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
}

/** A work tree on the computer it is on: a host's folder of the same path as one here is another. */
function workTreeKey(snapshots: SnapshotStore): string {
  return `${snapshots.where ?? ''}\0${snapshots.workTree}`;
}
