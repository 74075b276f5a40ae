import type { Reporter, TestCase, TestResult } from '@playwright/test/reporter';

/** Says plainly which tests were skipped and why, so a skipped suite is never mistaken for a passing one. */
export default class SkipReporter implements Reporter {
  private readonly skipped = new Map<string, string[]>();

  onTestEnd(test: TestCase, result: TestResult): void {
    if (result.status !== 'skipped') return;
    const reason =
      test.annotations.find((annotation) => annotation.type === 'skip')?.description ?? 'no reason given';
    const project = test.parent.project()?.name ?? '';
    const key = `${project ? `[${project}] ` : ''}${reason}`;
    this.skipped.set(key, [...(this.skipped.get(key) ?? []), test.title]);
  }

  onEnd(): void {
    for (const [reason, titles] of this.skipped) {
      console.log(
        `\nSKIPPED, not passed: ${titles.length} test${titles.length === 1 ? '' : 's'} — ${reason}`,
      );
      for (const title of titles) console.log(`  - ${title}`);
    }
  }

  printsToStdio(): boolean {
    return true;
  }
}
