import { Component, type ErrorInfo, type ReactNode } from 'react';

/**
 * Keeps one broken piece from blanking the window: whatever fails to render is replaced by a short note
 * (and a way to try again), never a stack trace.
 */
export class ErrorBoundary extends Component<{ what: string; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error(`Byre could not show ${this.props.what}:`, error.message, info.componentStack);
  }

  override render(): ReactNode {
    if (!this.state.failed) return this.props.children;
    return (
      <div className="render-error" role="alert">
        Byre could not show {this.props.what}.{' '}
        <button type="button" className="link-button" onClick={() => this.setState({ failed: false })}>
          Try again
        </button>
      </div>
    );
  }
}
