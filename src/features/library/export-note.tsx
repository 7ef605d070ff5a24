// What the Library says of its exports: one under way (a large run's file takes seconds to make), and why the last one
// failed (a click does not wait for its file, so a failure would otherwise be silent).
import { ErrorBanner } from '../../ui/error-banner.tsx';
import { useExports } from './download.ts';

export function ExportNote() {
  const { running, failed } = useExports();
  if (failed) {
    return (
      <ErrorBanner title="Export failed" onDismiss={() => useExports.setState({ failed: undefined })}>
        {failed}
      </ErrorBanner>
    );
  }
  if (running === 0) return null;
  return (
    <span role="status" className="text-xs text-slate-600" data-testid="export-note">
      Making the export file…
    </span>
  );
}
