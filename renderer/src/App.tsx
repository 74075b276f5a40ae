import { useEffect } from 'react';
import { ConversationView, folderName } from './chat/ConversationView';
import { NewConversation } from './chat/NewConversation';
import { ErrorBoundary } from './ErrorBoundary';
import { connectEvents } from './events';
import { useStore } from './store';
import './styles.css';

export function App() {
  const loadInfo = useStore((state) => state.loadInfo);
  const infoError = useStore((state) => state.infoError);

  useEffect(() => {
    const disconnect = connectEvents();
    void loadInfo();
    return disconnect;
  }, [loadInfo]);

  if (infoError) {
    return (
      <div className="state-panel" role="alert">
        <h2>Byre could not reach its backend</h2>
        <p>{infoError}</p>
      </div>
    );
  }
  return (
    <div className="app">
      <TabBar />
      <Main />
    </div>
  );
}

function TabBar() {
  const tabOrder = useStore((state) => state.tabOrder);
  const tabs = useStore((state) => state.tabs);
  const active = useStore((state) => state.activeTab);
  const activate = useStore((state) => state.activate);
  const closeTab = useStore((state) => state.closeTab);
  const showNew = useStore((state) => state.showNewConversation);
  return (
    <nav className="tab-bar">
      <div role="tablist" aria-label="Conversations" className="tabs">
        {tabOrder.map((id) => {
          const tab = tabs[id];
          if (!tab) return null;
          const label = tab.conversation.title ?? folderName(tab.cwd);
          const running = tab.conversation.status === 'running';
          return (
            <div key={id} className={`tab${id === active ? ' tab-active' : ''}`}>
              <button
                type="button"
                role="tab"
                aria-selected={id === active}
                className="tab-label"
                title={tab.cwd}
                onClick={() => activate(id)}
              >
                {running && <span className="tab-spinner" aria-hidden="true" />}
                {label}
              </button>
              <button
                type="button"
                className="tab-close"
                aria-label={`Close ${label}`}
                onClick={() => void closeTab(id)}
              >
                ×
              </button>
            </div>
          );
        })}
      </div>
      <button type="button" className="new-tab" onClick={showNew}>
        New conversation
      </button>
    </nav>
  );
}

function Main() {
  const composingNew = useStore((state) => state.composingNew);
  const active = useStore((state) =>
    state.activeTab && state.tabs[state.activeTab] ? state.activeTab : null,
  );
  const info = useStore((state) => state.info);
  if (!info) return <div className="state-panel">Loading…</div>;
  if (composingNew || !active) return <NewConversation />;
  return (
    <main className="main" role="tabpanel">
      <ErrorBoundary what="this conversation" key={active}>
        <ConversationView tabId={active} />
      </ErrorBoundary>
    </main>
  );
}
