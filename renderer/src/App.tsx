export function App() {
  return (
    <main>
      <h1>Byre</h1>
      <p>A desktop app for working with Claude Code.</p>
    </main>
  );
}
