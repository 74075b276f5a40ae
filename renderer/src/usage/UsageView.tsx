/**
 * The Usage view (issue 29): where the tokens and the money went, for a range, by day, folder or model.
 * It takes the main area in place of the conversation (as Settings takes the window, but the sidebar and
 * the tabs stay, so a conversation it lists opens one click away). The bars are SVG drawn with visx, so
 * they follow the theme's colours; each has a button over it for the pointer and the keyboard, which shows
 * its tooltip and lists that day's conversations.
 */
import { useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { Bar } from '@visx/shape';
import { Group } from '@visx/group';
import { useShallow } from 'zustand/react/shallow';
import type {
  ConversationUsage,
  FolderUsage,
  LaneUsage,
  UsageGrouping,
  UsageRange,
  UsageReport,
} from '../../../shared/ipc';
import { LANE_BILLING } from '../../../shared/ipc/app';
import { folderName } from '../state/selectors';
import { useStore } from '../state/store';
import type { UsageDayList, UsageMetric } from '../state/types';
import {
  GROUPING_WORDS,
  RANGE_WORDS,
  chartScales,
  colorOf,
  costWords,
  dayLabel,
  daysOfRange,
  formatMetric,
  formatTokens,
  groupBars,
  modelName,
  modelOrder,
  percent,
  sortFolders,
  stackDays,
  sumTokens,
  summaryText,
  todayIn,
  type FolderColumn,
  type SortDirection,
} from './figures';
import { LimitsSection } from './LimitsSection';

export interface UsagePanelProps {
  range: UsageRange;
  grouping: UsageGrouping;
  folder: string | null;
  metric: UsageMetric;
  report: UsageReport | null;
  loading: boolean;
  error: string | null;
  day: UsageDayList | null;
  /** Today in the report's time zone (YYYY-MM-DD); the chart's days end there. */
  today: string;
  onRange(range: UsageRange): void;
  onGrouping(grouping: UsageGrouping): void;
  onFolder(folder: string | null): void;
  onMetric(metric: UsageMetric): void;
  onDay(day: string | null): void;
  onOpen(sessionId: string): void;
  onRetry(): void;
  onClose(): void;
}

/** The view as the store has it: the main area's panel while it is open. */
export function UsageView() {
  const state = useStore(
    useShallow((store) => ({
      range: store.usageRange,
      grouping: store.usageGrouping,
      folder: store.usageFolder,
      metric: store.usageMetric,
      report: store.usageReport,
      loading: store.usageLoading,
      error: store.usageError,
      day: store.usageDay,
    })),
  );
  const actions = useStore.getState();
  const timeZone = state.report?.timeZone ?? 'UTC';
  return (
    <UsagePanel
      {...state}
      today={todayIn(timeZone)}
      onRange={(range) => void actions.setUsageRange(range)}
      onGrouping={actions.setUsageGrouping}
      onFolder={(folder) => void actions.setUsageFolder(folder)}
      onMetric={actions.setUsageMetric}
      onDay={(day) => void actions.showUsageDay(day)}
      onOpen={(sessionId) => void actions.openUsageConversation(sessionId)}
      onRetry={() => void actions.refreshUsage()}
      onClose={actions.closeUsage}
    />
  );
}

export function UsagePanel(props: UsagePanelProps) {
  const { report, loading, error, metric } = props;
  const headingId = useId();
  // Opened, it takes the keyboard, so that Escape closes it whatever opened it.
  const region = useRef<HTMLElement>(null);
  useEffect(() => region.current?.focus(), []);
  return (
    <section
      ref={region}
      tabIndex={-1}
      className="usage"
      role="region"
      aria-labelledby={headingId}
      onKeyDown={(event) => {
        // Escape leaves the view, unless a control in it (an open select) took it first.
        if (event.key === 'Escape' && !event.defaultPrevented) {
          event.preventDefault();
          props.onClose();
        }
      }}
    >
      <header className="usage-header">
        <h2 id={headingId}>Usage</h2>
        <UsageControls {...props} />
        {/*
          Always there, with its room kept: a line that came and went above the chart while a report was
          read would move everything under the pointer (and a click between its press and release is lost).
        */}
        <span className="usage-loading" role="status">
          {loading && report ? 'Reading usage…' : ''}
        </span>
        <button type="button" className="button-secondary usage-close" onClick={props.onClose}>
          Close
        </button>
      </header>
      {props.folder !== null && (
        <p className="usage-filter">
          Only <span title={props.folder}>{folderName(props.folder)}</span>
          <button
            type="button"
            className="usage-chip"
            aria-label={`Show every folder, not only ${folderName(props.folder)}`}
            onClick={() => props.onFolder(null)}
          >
            ×
          </button>
        </p>
      )}
      {error && (
        <div className="banner banner-warn usage-error" role="alert">
          <p>Usage could not be read: {error}</p>
          <button type="button" className="button-secondary" onClick={props.onRetry}>
            Try again
          </button>
        </div>
      )}
      {report?.indexing && (
        <p className="usage-note" role="status">
          The library is still being read: these figures may still grow.
        </p>
      )}
      {!report ? (
        !error && (
          <p className="usage-empty" role="status">
            Reading usage…
          </p>
        )
      ) : sumTokens(report.totals.tokens) === 0 ? (
        <p className="usage-empty">
          No usage {report.range === 'all' ? 'yet' : `in ${RANGE_WORDS[report.range].toLowerCase()}`}
          {props.folder !== null ? ' in this folder' : ''}.
        </p>
      ) : (
        <div className="usage-body">
          <div className="usage-chart-column">
            {props.grouping === 'day' ? (
              <DayChart report={report} metric={metric} today={props.today} onDay={props.onDay} />
            ) : (
              <GroupChart
                report={report}
                grouping={props.grouping}
                metric={metric}
                onFolder={props.onFolder}
              />
            )}
            {props.day && (
              <DayConversations list={props.day} onOpen={props.onOpen} onClose={() => props.onDay(null)} />
            )}
            <Totals report={report} />
            <LaneTable rows={report.lanes} />
            <LimitsSection onOpen={props.onOpen} />
            <TopConversations top={report.totals.top} onOpen={props.onOpen} />
          </div>
          <FolderTable rows={report.folders} onFolder={props.onFolder} />
        </div>
      )}
    </section>
  );
}

function UsageControls(props: UsagePanelProps) {
  return (
    <div className="usage-controls">
      <label>
        Range{' '}
        <select value={props.range} onChange={(event) => props.onRange(event.target.value as UsageRange)}>
          {(Object.keys(RANGE_WORDS) as UsageRange[]).map((range) => (
            <option key={range} value={range}>
              {RANGE_WORDS[range]}
            </option>
          ))}
        </select>
      </label>
      <label>
        Group by{' '}
        <select
          value={props.grouping}
          onChange={(event) => props.onGrouping(event.target.value as UsageGrouping)}
        >
          {(Object.keys(GROUPING_WORDS) as UsageGrouping[]).map((grouping) => (
            <option key={grouping} value={grouping}>
              {GROUPING_WORDS[grouping]}
            </option>
          ))}
        </select>
      </label>
      <div className="usage-toggle" role="group" aria-label="Measure">
        {(['tokens', 'cost'] as const).map((metric) => (
          <button
            key={metric}
            type="button"
            aria-pressed={props.metric === metric}
            onClick={() => props.onMetric(metric)}
          >
            {metric === 'tokens' ? 'Tokens' : 'Cost'}
          </button>
        ))}
      </div>
    </div>
  );
}

const CHART_HEIGHT = 220;
/** Room at the left for the axis's figures, and below for the days. */
const AXIS_LEFT = 52;
const AXIS_BOTTOM = 22;
/** Room above, so that the top figure is not cut in half. */
const AXIS_TOP = 8;

/** The chart's width as laid out (the default before the first layout, and in tests). */
function useWidth(initial: number): [React.RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(initial);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(Math.max(200, Math.floor(entry.contentRect.width)));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

function DayChart({
  report,
  metric,
  today,
  onDay,
}: {
  report: UsageReport;
  metric: UsageMetric;
  today: string;
  onDay(day: string): void;
}) {
  const summaryId = useId();
  const tooltipId = useId();
  const [ref, width] = useWidth(640);
  const [shown, setShown] = useState<string | null>(null);
  const order = modelOrder(report.models);
  const stacks = stackDays(daysOfRange(report.range, today, report.days), report.days, metric, order);
  const max = Math.max(0, ...stacks.map((stack) => stack.total));
  const plotWidth = width - AXIS_LEFT;
  const plotHeight = CHART_HEIGHT - AXIS_BOTTOM - AXIS_TOP;
  const { x, y } = chartScales(
    stacks.map((stack) => stack.day),
    max,
    plotWidth,
    plotHeight,
  );
  const top = y.domain()[1] ?? max;
  const byDay = new Map(report.days.map((day) => [day.day, day]));
  // A label under every day would overlap: about one per 60 px, always the first and the last.
  const every = Math.max(1, Math.ceil(stacks.length / Math.max(1, Math.floor(plotWidth / 60))));
  const shownStack = stacks.find((stack) => stack.day === shown);
  return (
    <figure className="usage-chart">
      <div className="usage-plot" ref={ref}>
        <svg
          role="img"
          aria-label="Usage by day"
          aria-describedby={summaryId}
          width={width}
          height={CHART_HEIGHT}
          viewBox={`0 0 ${width} ${CHART_HEIGHT}`}
        >
          <Group left={AXIS_LEFT} top={AXIS_TOP}>
            {[0, 0.5, 1].map((share) => (
              <g key={share} className="usage-grid">
                <line x1={0} x2={plotWidth} y1={y(top * share)} y2={y(top * share)} />
                <text x={-6} y={y(top * share)} dy="0.32em" textAnchor="end">
                  {formatMetric(metric, top * share)}
                </text>
              </g>
            ))}
            {stacks.map((stack, index) =>
              stack.segments.map((segment) => (
                <Bar
                  key={`${stack.day}:${segment.model}`}
                  className={shown === stack.day ? 'usage-bar usage-bar-shown' : 'usage-bar'}
                  x={x(stack.day) ?? 0}
                  width={x.bandwidth()}
                  y={y(segment.y1)}
                  height={Math.max(0, y(segment.y0) - y(segment.y1))}
                  fill={colorOf(order.indexOf(segment.model))}
                  data-index={index}
                />
              )),
            )}
            {stacks.map((stack, index) =>
              // The last day always; a regular one only where it leaves room before the last.
              index === stacks.length - 1 || (index % every === 0 && stacks.length - 1 - index >= every) ? (
                <text
                  key={stack.day}
                  className="usage-axis-day"
                  // The last day's label ends at its bar, so the chart's right edge does not cut it.
                  x={
                    (x(stack.day) ?? 0) +
                    (index === stacks.length - 1 && stacks.length > 1 ? x.bandwidth() : x.bandwidth() / 2)
                  }
                  y={plotHeight + 15}
                  textAnchor={index === stacks.length - 1 && stacks.length > 1 ? 'end' : 'middle'}
                >
                  {dayLabel(stack.day)}
                </text>
              ) : null,
            )}
          </Group>
        </svg>
        {/* Over each day with usage, a button: hover and focus show its tooltip, a click lists its day. */}
        <div className="usage-hits" style={{ left: AXIS_LEFT, top: AXIS_TOP, height: plotHeight }}>
          {stacks.map((stack) =>
            stack.total > 0 ? (
              <button
                key={stack.day}
                type="button"
                className="usage-hit"
                style={{ left: x(stack.day) ?? 0, width: Math.max(x.bandwidth(), 6) }}
                aria-label={`${dayLabel(stack.day)}: ${formatMetric(metric, stack.total)}${metric === 'tokens' ? ' tokens' : ''}`}
                aria-describedby={shown === stack.day ? tooltipId : undefined}
                onMouseEnter={() => setShown(stack.day)}
                onMouseLeave={() => setShown((now) => (now === stack.day ? null : now))}
                onFocus={() => setShown(stack.day)}
                onBlur={() => setShown((now) => (now === stack.day ? null : now))}
                onClick={() => onDay(stack.day)}
              />
            ) : null,
          )}
        </div>
        {shownStack && (
          <div
            id={tooltipId}
            role="tooltip"
            className="usage-tooltip"
            style={tooltipPlace((x(shownStack.day) ?? 0) + AXIS_LEFT + x.bandwidth() / 2, width)}
          >
            <strong>{dayLabel(shownStack.day)}</strong>
            <ul>
              {(byDay.get(shownStack.day)?.models ?? []).map((model) => (
                <li key={model.model}>
                  <span
                    className="usage-swatch"
                    style={{ background: colorOf(order.indexOf(model.model)) }}
                  />
                  <span className="usage-tooltip-model">{modelName(model.model)}</span>{' '}
                  {formatTokens(sumTokens(model.tokens))} tokens, {costWords(model.cost)}
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
      <figcaption id={summaryId} className="usage-summary">
        {summaryText(report, metric)}
      </figcaption>
      <ul className="usage-legend" aria-label="Models">
        {order.map((model, index) => (
          <li key={model} title={model}>
            <span className="usage-swatch" style={{ background: colorOf(index) }} />
            {modelName(model)}
          </li>
        ))}
      </ul>
    </figure>
  );
}

/** Where a bar's tooltip goes: centred over it, but never past either edge of the chart. */
function tooltipPlace(centre: number, width: number): React.CSSProperties {
  return centre > width / 2
    ? { right: Math.max(0, width - centre - 90) }
    : { left: Math.max(0, centre - 90) };
}

/** By folder or by model: a bar per group, across, so that long paths and model names have room. */
function GroupChart({
  report,
  grouping,
  metric,
  onFolder,
}: {
  report: UsageReport;
  grouping: 'folder' | 'model';
  metric: UsageMetric;
  onFolder(folder: string | null): void;
}) {
  const summaryId = useId();
  const bars = groupBars(report, grouping, metric);
  const max = Math.max(0, ...bars.map((bar) => bar.value));
  const { y: scale } = chartScales([], max, 0, 100);
  const top = scale.domain()[1] ?? 1;
  const name = `Usage by ${grouping}`;
  return (
    <figure className="usage-chart">
      {bars.length === 0 ? (
        <p className="usage-empty">Nothing here could be priced: switch to tokens to see it.</p>
      ) : (
        <ul className="usage-groups" aria-label={name} aria-describedby={summaryId}>
          {bars.map((bar, index) => {
            const label = (
              <>
                <span className="usage-group-label">{bar.label}</span>
                <svg
                  className="usage-group-bar"
                  viewBox="0 0 100 10"
                  preserveAspectRatio="none"
                  aria-hidden="true"
                >
                  <Bar
                    x={0}
                    y={0}
                    height={10}
                    width={(bar.value / top) * 100}
                    fill={
                      grouping === 'model'
                        ? colorOf(modelOrder(report.models).indexOf(bar.key))
                        : colorOf(index)
                    }
                  />
                </svg>
                <span className="usage-group-value">{formatMetric(metric, bar.value)}</span>
              </>
            );
            return (
              <li key={bar.key} title={bar.title}>
                {grouping === 'folder' ? (
                  <button
                    type="button"
                    className="usage-group"
                    aria-label={`${bar.title}: ${formatMetric(metric, bar.value)}; show only this folder`}
                    onClick={() => onFolder(bar.key === '' ? null : bar.key)}
                    disabled={bar.key === ''}
                  >
                    {label}
                  </button>
                ) : (
                  <div className="usage-group">{label}</div>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <figcaption id={summaryId} className="usage-summary">
        {summaryText(report, metric)}
      </figcaption>
    </figure>
  );
}

function ConversationButton({
  usage,
  onOpen,
}: {
  usage: ConversationUsage;
  onOpen(sessionId: string): void;
}) {
  return (
    <button type="button" className="usage-conversation" onClick={() => onOpen(usage.sessionId)}>
      <span className="usage-conversation-title">{usage.title}</span>
      <span className="usage-conversation-detail">
        {usage.folder ? <span title={usage.folder}>{folderName(usage.folder)}</span> : 'No folder'} ·{' '}
        {formatTokens(sumTokens(usage.tokens))} tokens · {costWords(usage.cost)}
      </span>
    </button>
  );
}

function DayConversations({
  list,
  onOpen,
  onClose,
}: {
  list: UsageDayList;
  onOpen(sessionId: string): void;
  onClose(): void;
}) {
  const headingId = useId();
  return (
    <section className="usage-day" aria-labelledby={headingId}>
      <h3 id={headingId}>Conversations on {dayLabel(list.day)}</h3>
      <button
        type="button"
        className="usage-chip"
        aria-label="Close the day's conversations"
        onClick={onClose}
      >
        ×
      </button>
      {list.error ? (
        <p role="alert">They could not be read: {list.error}</p>
      ) : !list.conversations ? (
        <p role="status">Reading…</p>
      ) : list.conversations.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul>
          {list.conversations.map((usage) => (
            <li key={usage.sessionId}>
              <ConversationButton usage={usage} onOpen={onOpen} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Totals({ report }: { report: UsageReport }) {
  const { tokens, cost, conversations, cacheReadShare } = report.totals;
  const figures: [string, ReactNode][] = [
    ['Input', formatTokens(tokens.input)],
    ['Output', formatTokens(tokens.output)],
    ['Cache write', formatTokens(tokens.cacheWrite)],
    ['Cache read', formatTokens(tokens.cacheRead)],
    ['Cost', costWords(cost)],
    ['Read from cache', percent(cacheReadShare)],
    ['Conversations', String(conversations)],
  ];
  return (
    <section className="usage-totals" aria-label="Totals">
      <dl>
        {figures.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {(cost.estimated || cost.unpricedTokens > 0) && (
        <p className="usage-note">
          {cost.estimated && `Estimated from prices checked on ${report.pricingCheckedAt}. `}
          {cost.unpricedTokens > 0 &&
            `${formatTokens(cost.unpricedTokens)} tokens of models Byre has no price for are left out of the cost.`}
        </p>
      )}
    </section>
  );
}

const LANE_NAMES: Record<LaneUsage['lane'], { name: string; billing: string }> = {
  terminal: { name: 'Terminal', billing: LANE_BILLING.terminal },
  stream: { name: 'Stream', billing: LANE_BILLING.stream },
  unknown: { name: 'Not recorded', billing: 'Lines that do not say how they ran' },
};

/** The range's usage by lane: what went to the plan's limits apart from what went to the SDK credit or API. */
export function LaneTable({ rows }: { rows: LaneUsage[] }) {
  const headingId = useId();
  if (rows.length === 0) return null;
  const sumOf = (row: LaneUsage) => sumTokens(row.tokens);
  return (
    <section className="usage-lanes" aria-labelledby={headingId}>
      <h3 id={headingId}>By lane</h3>
      <div className="usage-table-wrap">
        <table className="usage-table" aria-labelledby={headingId}>
          <thead>
            <tr>
              <th scope="col">Lane</th>
              <th scope="col">Conversations</th>
              <th scope="col">Tokens</th>
              <th scope="col">Cost at API rates</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.lane}>
                <th scope="row">
                  <span className="usage-lane-name">{LANE_NAMES[row.lane].name}</span>
                  <span className="usage-lane-billing">{LANE_NAMES[row.lane].billing}</span>
                </th>
                <td>{row.conversations}</td>
                <td>{formatTokens(sumOf(row))}</td>
                <td>{costWords(row.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.some((row) => row.lane === 'terminal') && (
        <p className="usage-note">
          A subscription’s plan limits cover the Terminal lane: its cost is what the same tokens would cost at
          API rates. A conversation carried on in the other lane counts in both.
        </p>
      )}
    </section>
  );
}

function TopConversations({ top, onOpen }: { top: ConversationUsage[]; onOpen(sessionId: string): void }) {
  const headingId = useId();
  if (top.length === 0) return null;
  return (
    <section className="usage-top" aria-labelledby={headingId}>
      <h3 id={headingId}>Most expensive conversations</h3>
      <ol>
        {top.map((usage) => (
          <li key={usage.sessionId}>
            <ConversationButton usage={usage} onOpen={onOpen} />
          </li>
        ))}
      </ol>
    </section>
  );
}

const COLUMNS: [FolderColumn, string][] = [
  ['folder', 'Folder'],
  ['conversations', 'Conversations'],
  ['input', 'Input'],
  ['output', 'Output'],
  ['cacheWrite', 'Cache write'],
  ['cacheRead', 'Cache read'],
  ['cost', 'Cost'],
];

export interface FolderSort {
  column: FolderColumn;
  direction: SortDirection;
}

/** "Usage by folder": sorted by the column last clicked (again: the other way), a folder's name filters. */
export function FolderTable({
  rows,
  onFolder,
  initialSort = { column: 'cost', direction: 'descending' },
}: {
  rows: FolderUsage[];
  onFolder(folder: string | null): void;
  initialSort?: FolderSort;
}) {
  const [sort, setSort] = useState(initialSort);
  const sorted = sortFolders(rows, sort.column, sort.direction);
  return (
    <div className="usage-table-wrap">
      <table className="usage-table" aria-label="Usage by folder">
        <thead>
          <tr>
            {COLUMNS.map(([column, label]) => (
              <th key={column} scope="col" aria-sort={sort.column === column ? sort.direction : 'none'}>
                <button
                  type="button"
                  onClick={() =>
                    setSort((now) => ({
                      column,
                      direction:
                        now.column === column
                          ? now.direction === 'ascending'
                            ? 'descending'
                            : 'ascending'
                          : column === 'folder'
                            ? 'ascending'
                            : 'descending',
                    }))
                  }
                >
                  {label}
                  <span aria-hidden="true" className="usage-sort">
                    {sort.column === column ? (sort.direction === 'ascending' ? ' ▲' : ' ▼') : ''}
                  </span>
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {sorted.map((row) => (
            <tr key={row.folder ?? ''}>
              <th scope="row">
                {row.folder === null ? (
                  <span className="muted">No folder</span>
                ) : (
                  <button
                    type="button"
                    className="usage-folder"
                    title={row.folder}
                    aria-label={`${row.folder}: show only this folder`}
                    onClick={() => onFolder(row.folder)}
                  >
                    <span className="usage-folder-name">{folderName(row.folder)}</span>
                    <span className="usage-folder-path">{row.folder}</span>
                  </button>
                )}
              </th>
              <td>{row.conversations}</td>
              <td>{formatTokens(row.tokens.input)}</td>
              <td>{formatTokens(row.tokens.output)}</td>
              <td>{formatTokens(row.tokens.cacheWrite)}</td>
              <td>{formatTokens(row.tokens.cacheRead)}</td>
              <td>{costWords(row.cost)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
