export function PlaygroundView(_props: Record<string, unknown>) {
  return <div data-testid="view-playground">todo</div>;
}
