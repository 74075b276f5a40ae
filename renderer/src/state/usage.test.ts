import { describe, expect, it, vi } from 'vitest';
import type { ByreApi, UsageRange, UsageReport } from '../../../shared/ipc';
import { usageReport } from '../usage/fixture';
import { createStore } from './store';
import { userTimeZone } from './usage';

/**
 * The Usage slice against a scripted window.byre: it asks for the range and folder shown in the user's
 * time zone, switching the grouping asks nothing, main's `usageChanged` is heard only while the view is
 * open, and a slow answer never replaces a newer one.
 */

type Calls = Partial<Record<keyof ByreApi, ReturnType<typeof vi.fn>>>;

function freshStore(calls: Calls) {
  (globalThis as { window?: unknown }).window = { byre: calls };
  return createStore();
}

const ok = <T>(value: T) => ({ ok: true as const, value });
/**
 * A report while the index still reads files: nothing is read behind it, so a test of what the view asks
 * sees only that.
 */
const reading = (): UsageReport => ({ ...usageReport(), indexing: true });
const until = (ready: () => boolean) => vi.waitFor(() => expect(ready()).toBe(true));

describe('the Usage view in the store', () => {
  it('opens on 30 days by day, asked in the user’s time zone', async () => {
    const report = vi.fn(async () => ok(usageReport()));
    const store = freshStore({ usageReport: report });
    store.getState().openUsage();
    await until(() => store.getState().usageReport !== null);
    expect(report).toHaveBeenCalledWith({ range: '30d', folder: null, timeZone: userTimeZone() });
    expect(store.getState().usageGrouping).toBe('day');
    expect(store.getState().usageLoading).toBe(false);
  });

  it('asks again for a range or a folder, but not for a grouping or the metric', async () => {
    const report = vi.fn(async () => ok(reading()));
    const store = freshStore({ usageReport: report });
    store.getState().openUsage();
    await until(() => !store.getState().usageLoading);
    store.getState().setUsageGrouping('model');
    store.getState().setUsageMetric('cost');
    expect(report).toHaveBeenCalledTimes(1);
    await store.getState().setUsageRange('7d');
    await store.getState().setUsageFolder('/home/ann/code/byre');
    expect(report).toHaveBeenLastCalledWith({
      range: '7d',
      folder: '/home/ann/code/byre',
      timeZone: userTimeZone(),
    });
  });

  it('hears that usage changed only while the view is open', async () => {
    const report = vi.fn(async () => ok(reading()));
    const store = freshStore({ usageReport: report });
    store.getState().usageChanged();
    expect(report).not.toHaveBeenCalled();
    store.getState().openUsage();
    await until(() => !store.getState().usageLoading);
    store.getState().usageChanged();
    await until(() => report.mock.calls.length === 2);
    store.getState().closeUsage();
    store.getState().usageChanged();
    expect(report).toHaveBeenCalledTimes(2);
  });

  it('keeps the answer to the latest question, and says why one failed', async () => {
    let answerFirst: (value: ReturnType<typeof ok<UsageReport>>) => void = () => undefined;
    const report = vi
      .fn()
      .mockImplementationOnce(() => new Promise((resolve) => (answerFirst = resolve)))
      .mockImplementationOnce(async () => ok({ ...reading(), range: '7d' }));
    const store = freshStore({ usageReport: report });
    store.getState().openUsage();
    await store.getState().setUsageRange('7d');
    answerFirst(ok(reading()));
    await until(() => report.mock.calls.length === 2);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(store.getState().usageReport?.range).toBe('7d');

    report.mockImplementationOnce(async () => ({
      ok: false as const,
      error: { name: 'NotSupported', message: 'Usage is not built yet.' },
    }));
    await store.getState().refreshUsage();
    expect(store.getState().usageError).toBe('Usage is not built yet.');
    // The figures read before stay on screen.
    expect(store.getState().usageReport?.range).toBe('7d');
  });

  it('lists a day’s conversations, and opens one in place of the view', async () => {
    const conversations = usageReport().totals.top;
    const day = vi.fn(async () => ok({ conversations }));
    const store = freshStore({
      usageReport: vi.fn(async () => ok(usageReport())),
      usageDayConversations: day,
    });
    store.getState().openUsage();
    await store.getState().showUsageDay('2026-11-12');
    expect(day).toHaveBeenCalledWith({ day: '2026-11-12', folder: null, timeZone: userTimeZone() });
    expect(store.getState().usageDay?.conversations).toEqual(conversations);
    const openSaved = vi.fn(async () => undefined);
    store.setState({ openSaved });
    await store.getState().openUsageConversation(conversations[0]!.sessionId);
    expect(openSaved).toHaveBeenCalledWith(conversations[0]!.sessionId);
    expect(store.getState().usageOpen).toBe(false);
  });

  it('reads the other ranges behind the one shown, so that switching shows them without asking', async () => {
    const report = vi.fn(async ({ range }: { range: UsageRange }) => ok({ ...usageReport(), range }));
    const store = freshStore({ usageReport: report });
    store.getState().openUsage();
    // 30 days first, for the view; then the four others, one at a time.
    await until(() => report.mock.calls.length === 5);
    expect(report.mock.calls.map(([request]) => request.range)).toEqual(['30d', 'today', '7d', '90d', 'all']);
    await new Promise((resolve) => setTimeout(resolve, 0));
    const switched = store.getState().setUsageRange('all');
    // Shown at once, before any answer could come.
    expect(store.getState().usageReport?.range).toBe('all');
    expect(store.getState().usageLoading).toBe(false);
    await switched;
    expect(report).toHaveBeenCalledTimes(5);

    // Once usage changed, what was read is stale: the range shown is read again, and a switch asks.
    store.getState().usageChanged();
    await until(() => report.mock.calls.length >= 6);
    expect(report.mock.calls[5]?.[0].range).toBe('all');
  });

  it('reads nothing behind a report while the index is still reading files', async () => {
    const report = vi.fn(async () => ok({ ...usageReport(), indexing: true }));
    const store = freshStore({ usageReport: report });
    store.getState().openUsage();
    await until(() => store.getState().usageReport !== null);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(report).toHaveBeenCalledTimes(1);
  });

  it('stays open while a conversation comes to the front on its own, and gives way to one opened', async () => {
    const store = freshStore({
      usageReport: vi.fn(async () => ok(reading())),
      openSaved: vi.fn(() => new Promise(() => undefined)),
    });
    store.getState().openUsage();
    // The launch folder's conversation (or a kept tab) started after the user opened the view.
    store.setState({ activeTab: 'starting-1' });
    expect(store.getState().usageOpen).toBe(true);
    // A conversation opened from the list takes its place.
    void store.getState().openSaved('c2f7a0b4-8d5e-4f1a-9b3c-2d4e5f6a7b8c');
    expect(store.getState().usageOpen).toBe(false);
  });

  it('reads a report again once the library says it changed, while that report said it was still reading', async () => {
    const report = vi
      .fn()
      .mockImplementationOnce(async () => ok(reading()))
      .mockImplementation(async () => ok(usageReport()));
    const store = freshStore({ usageReport: report });
    store.getState().openUsage();
    await until(() => store.getState().usageReport?.indexing === true);
    // The index finished: no usage changed with its last step, but the library's status did.
    store.getState().usageLibraryChanged();
    await until(() => store.getState().usageReport?.indexing === false);
    const asked = report.mock.calls.length;
    // Settled, the library changing (a title renamed, say) asks nothing more.
    store.getState().usageLibraryChanged();
    expect(report).toHaveBeenCalledTimes(asked);
  });

  it('reads ahead for a folder chosen while the ranges of the one before were still being read', async () => {
    // Every folder's read ahead is answered, except the first one's, which is still under way.
    const report = vi.fn(({ range, folder }: { range: UsageRange; folder: string | null }) =>
      folder === null && range !== '30d'
        ? new Promise(() => undefined)
        : Promise.resolve(ok({ ...usageReport(), range, folder })),
    );
    const store = freshStore({ usageReport: report });
    store.getState().openUsage();
    await until(() => report.mock.calls.length === 2);
    await store.getState().setUsageFolder('/home/ann/code/byre');
    const forFolder = () =>
      report.mock.calls.filter(([request]) => request.folder === '/home/ann/code/byre').map(([r]) => r.range);
    await until(() => forFolder().length === 5);
    expect(new Set(forFolder())).toEqual(new Set(['30d', 'today', '7d', '90d', 'all']));
  });
});
