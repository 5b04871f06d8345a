export function BoxesView(_props: Record<string, unknown>) {
  return <div data-testid="view-boxes">todo</div>;
}
