import { describe, expect, it } from 'vitest';
import {
  COMPARED,
  failed,
  judge,
  machineFloorRuns,
  quartileSpread,
  measurementsFor,
  parseCompareArguments,
  report,
  updatedBaseline,
  type Baseline,
  type ComparedFigure,
  type MachineFloor,
} from './compare';

const spec = (key: string): ComparedFigure => {
  const found = COMPARED.find((figure) => figure.key === key);
  if (!found) throw new Error(`no ${key}`);
  return found;
};

const machine: MachineFloor = { ms: 40, spread: 0.04 };

/** A baseline of one figure, measured at `value` against a machine floor of 40 ms (or its own floor). */
function baselineOf(key: string, value: number, floor = 40, spread = 0.03): Baseline {
  return {
    commit: 'abc1234',
    written: '2026-12-07T00:00:00.000Z',
    machine: '2 × test',
    machineFloorMs: 40,
    machineFloorSpread: 0.04,
    figures: { [key]: { value, floor, ratio: value / floor, spread } },
  };
}

describe('the bench guard', () => {
  it('fails a figure that is slower than its baseline by more than the noise its runs measured', () => {
    const baseline = baselineOf('library_first_page_warm_ms', 150);
    const slower = judge(
      spec('library_first_page_warm_ms'),
      {
        library_first_page_warm_ms: 190,
        library_first_page_warm_runs: '188, 190, 193',
        // Its own floor (a first page of one row), as in the baseline.
        library_first_page_floor_ms: 40,
      },
      machine,
      baseline,
    );
    expect(slower.goal).toBe('pass');
    expect(slower.regressed).toBe(true);
    expect(slower.why.join()).toMatch(
      /26\.7% worse than its baseline as a ratio to its floor and 26\.7% as measured, beyond the noise of 5%/,
    );
    expect(failed([slower])).toBe(true);

    const noisy = judge(
      spec('library_first_page_warm_ms'),
      // The same median, but runs that spread by 30%: the change is within what was measured.
      {
        library_first_page_warm_ms: 170,
        library_first_page_warm_runs: '150, 170, 201',
        library_first_page_floor_ms: 40,
      },
      machine,
      baseline,
    );
    expect(noisy.regressed).toBe(false);
    expect(failed([noisy])).toBe(false);
  });

  it('divides by the machine floor of the same run: a machine twice as slow is no regression', () => {
    const baseline = baselineOf('usage_view_first_paint_warm_ms', 100);
    const slowMachine = judge(
      spec('usage_view_first_paint_warm_ms'),
      { usage_view_first_paint_warm_ms: 200 },
      { ms: 80, spread: 0.02 },
      baseline,
    );
    expect(slowMachine.change).toBeCloseTo(0);
    expect(slowMachine.regressed).toBe(false);
    // The goal is absolute: 200 ms is not under 300 ms… it is; 320 would not be.
    expect(slowMachine.goal).toBe('pass');
    const tooSlow = judge(
      spec('usage_view_first_paint_warm_ms'),
      { usage_view_first_paint_warm_ms: 320 },
      { ms: 80, spread: 0.02 },
      baseline,
    );
    expect(tooSlow.goal).toBe('fail');
    expect(tooSlow.why.join()).toMatch(/misses its goal \(< 300\)/);
  });

  it('takes a floor faster this run than in the baseline, the figure the same, as no regression', () => {
    const baseline = baselineOf('usage_view_first_paint_warm_ms', 174, 94);
    const same = judge(
      spec('usage_view_first_paint_warm_ms'),
      { usage_view_first_paint_warm_ms: 180, usage_view_first_paint_warm_runs: '176, 180, 183' },
      { ms: 66, spread: 0.01 },
      baseline,
    );
    // As a ratio it is 47% worse, but the figure is not: the floor moved.
    expect(same.change).toBeGreaterThan(0.4);
    expect(same.measuredChange).toBeLessThan(0.05);
    expect(same.regressed).toBe(false);
    expect(report([same], { ms: 66, spread: 0.01 }, baseline).at(-1)).toMatch(
      /^PASS: .*change \+4[0-9.]+% as a ratio, \+3\.4% as measured/,
    );
  });

  it("divides by a figure's own floor, and takes being at a floor above the goal as meeting it", () => {
    const atFloor = judge(
      spec('worktree_create_ms'),
      {
        worktree_create_ms: 2600,
        worktree_git_add_floor_ms: 2550,
        worktree_create_runs_ms: '2580 2600 2650',
      },
      machine,
      null,
    );
    expect(atFloor.ratio).toBeCloseTo(2600 / 2550);
    expect(atFloor.goal).toBe('pass');
    expect(atFloor.atFloor).toBe(true);
    const aboveFloor = judge(
      spec('worktree_create_ms'),
      {
        worktree_create_ms: 4000,
        worktree_git_add_floor_ms: 2550,
        worktree_create_runs_ms: '3990 4000 4010',
      },
      machine,
      null,
    );
    expect(aboveFloor.goal).toBe('fail');
  });

  it('fails a ratio that should be high when it falls: decode slower against JSON.parse', () => {
    const baseline = baselineOf('decode_real_path_vs_json_parse', 0.62, 1, 0);
    const slower = judge(
      spec('decode_real_path_vs_json_parse'),
      { decode_real_path_vs_json_parse: 0.52 },
      machine,
      baseline,
    );
    expect(slower.goal).toBe('pass');
    expect(slower.regressed).toBe(true);
    const faster = judge(
      spec('decode_real_path_vs_json_parse'),
      { decode_real_path_vs_json_parse: 0.7 },
      machine,
      baseline,
    );
    expect(faster.regressed).toBe(false);
    expect(faster.change).toBeLessThan(0);
  });

  it('judges an every-run goal on its worst run, and a figure not measured as a failure', () => {
    const streaming = judge(
      spec('ui_streaming_longest_task_ms'),
      { ui_streaming_longest_task_ms: 40, ui_streaming_longest_task_ms_runs: '38, 40, 61' },
      machine,
      null,
    );
    expect(streaming.value).toBe(61);
    expect(streaming.goal).toBe('fail');
    const missing = judge(spec('changes_snapshot_ms'), { changes_error: 'git failed' }, machine, null);
    expect(missing.value).toBeNull();
    expect(missing.why.join()).toMatch(/not measured/);
    expect(failed([missing])).toBe(true);
    expect(report([missing], machine, null).at(-1)).toMatch(/^FAIL: changes_snapshot_ms n\/a/);
  });

  it('takes a baseline only from a run that met every goal, keeping the figures it did not run', () => {
    const previous = baselineOf('changes_panel_first_paint_ms', 250);
    const good = judge(
      spec('usage_view_first_paint_warm_ms'),
      { usage_view_first_paint_warm_ms: 120 },
      machine,
      null,
    );
    const bad = judge(spec('library_search_p95_ms'), { library_search_p95_ms: 103 }, machine, null);
    const refused = updatedBaseline([good, bad], machine, previous, 'def5678', new Date(0));
    expect(refused).toEqual({ refused: ['library_search_p95_ms'] });
    const taken = updatedBaseline([good], machine, previous, 'def5678', new Date(0));
    if ('refused' in taken) throw new Error('refused');
    expect(Object.keys(taken.figures).sort()).toEqual([
      'changes_panel_first_paint_ms',
      'usage_view_first_paint_warm_ms',
    ]);
    expect(taken.figures.usage_view_first_paint_warm_ms).toMatchObject({ value: 120, floor: 40, ratio: 3 });
  });

  it('never takes a regressed figure as the next baseline, and takes a floor that is not a number as not measured', () => {
    const baseline = baselineOf('usage_view_first_paint_warm_ms', 100);
    const regressed = judge(
      spec('usage_view_first_paint_warm_ms'),
      { usage_view_first_paint_warm_ms: 250, usage_view_first_paint_warm_runs: '248, 250, 252' },
      machine,
      baseline,
    );
    expect(regressed.goal).toBe('pass');
    expect(regressed.regressed).toBe(true);
    expect(updatedBaseline([regressed], machine, baseline, 'def5678', new Date(0))).toEqual({
      refused: ['usage_view_first_paint_warm_ms'],
    });
    const noFloor = judge(
      spec('worktree_create_ms'),
      { worktree_create_ms: 900, worktree_git_add_floor_ms: Number.NaN },
      machine,
      baselineOf('worktree_create_ms', 900, 800),
    );
    expect(noFloor.value).toBeNull();
    expect(failed([noFloor])).toBe(true);
  });

  it('runs only the groups named, and refuses a group it does not know', () => {
    expect(parseCompareArguments(['decode', '--update'])).toEqual({ update: true, groups: ['decode'] });
    expect(measurementsFor(['decode', 'worktree'])).toEqual(['byre_decode', 'decode_real_path', 'worktrees']);
    expect(measurementsFor(['streaming'])).toEqual(['ui_streaming', 'ui_ten_streaming']);
    expect(() => parseCompareArguments(['decoder'])).toThrow(/compare knows the groups decode, streaming/);
  });

  it('measures the machine floor in a fresh process, and its noise robust to one slow run', () => {
    const runs = machineFloorRuns(3);
    expect(runs).toHaveLength(3);
    expect(runs.every((ms) => ms > 0)).toBe(true);
    // One run in eight slowed by a collection does not make the floor's noise 100%.
    expect(quartileSpread([60, 61, 62, 63, 64, 65, 66, 130])).toBeCloseTo(3 / 63.5, 3);
  });
});
