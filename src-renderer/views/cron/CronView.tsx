export function CronView(_props: Record<string, unknown>) {
  return <div data-testid="view-cron">todo</div>;
}
