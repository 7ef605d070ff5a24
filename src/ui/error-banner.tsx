// A readable, dismissible error. Text only: messages can quote untrusted trace content.
import type { ReactNode } from 'react';
import { Button } from './button.tsx';

export interface ErrorBannerProps {
  title: string;
  children?: ReactNode;
  onDismiss?: () => void;
  tone?: 'error' | 'warning';
}

export function ErrorBanner({ title, children, onDismiss, tone = 'error' }: ErrorBannerProps) {
  const colours = tone === 'error' ? 'border-red-300 bg-red-50 text-red-900' : 'border-amber-300 bg-amber-50 text-amber-900';
  return (
    <div role={tone === 'error' ? 'alert' : 'status'} className={`flex items-start gap-3 rounded border px-3 py-2 text-sm ${colours}`}>
      <div className="min-w-0 flex-1">
        <p className="font-semibold break-words">{title}</p>
        {children && <div className="mt-0.5 break-words">{children}</div>}
      </div>
      {onDismiss && (
        <Button variant="ghost" size="sm" onClick={onDismiss} aria-label={`Dismiss: ${title}`}>
          Dismiss
        </Button>
      )}
    </div>
  );
}
