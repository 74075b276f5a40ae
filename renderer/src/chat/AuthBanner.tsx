import { useStore } from '../state/store';

/**
 * How logging in goes, from the CLI's auth_status line, by the composer: what the login printed, why it
 * failed, and how to log in. Byre cannot log in itself (the CLI's login wants a terminal or a browser it opens),
 * so it says what a reply that failed on authentication says (MessageView's hint): run `claude` in a terminal.
 */
export function AuthBanner({ tabId }: { tabId: string }) {
  const auth = useStore((state) => state.tabs[tabId]?.conversation.authStatus ?? null);
  if (!auth || (!auth.isAuthenticating && !auth.error)) return null;
  return (
    <div className={`banner ${auth.error ? 'banner-error' : 'banner-info'} auth-banner`} role="alert">
      <p>{auth.isAuthenticating ? 'Claude Code is logging in…' : 'Claude Code is not logged in.'}</p>
      {auth.error && <p>{auth.error}</p>}
      {auth.output.length > 0 && <pre className="auth-output">{auth.output.join('\n')}</pre>}
      <p className="hint">
        Byre uses the Claude Code CLI&apos;s login. Run <code>claude</code> in a terminal and sign in with{' '}
        <code>/login</code> (or set <code>ANTHROPIC_API_KEY</code> before starting Byre), then start a new
        conversation.
      </p>
    </div>
  );
}
