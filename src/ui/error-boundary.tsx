// One failing view or panel must never blank the studio (issue 17, item 7): each view in the frame and each panel in a
// view sits in its own boundary, which shows what failed, the error as text, and a way to try again.
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { Button } from './button.tsx';

export interface ErrorBoundaryProps {
  /** What is inside, in words a reader knows: "token chart", "Run view". */
  name: string;
  children?: ReactNode;
  /** When this changes (another run, another step), a failed boundary tries again by itself. */
  resetKey?: unknown;
  /** A whole view gets more room than a panel. */
  size?: 'view' | 'panel';
}

interface State {
  error?: unknown;
  resetKey?: unknown;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message ? `${error.name}: ${error.message}` : error.name;
  try {
    return String(error);
  } catch {
    return 'an error that cannot be shown as text';
  }
}

export class ErrorBoundary extends Component<ErrorBoundaryProps, State> {
  state: State = { resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error ?? new Error('unknown error') };
  }

  static getDerivedStateFromProps(props: ErrorBoundaryProps, state: State): Partial<State> | null {
    if (Object.is(props.resetKey, state.resetKey)) return null;
    return { resetKey: props.resetKey, error: undefined };
  }

  componentDidCatch(error: unknown, info: ErrorInfo): void {
    // Kept for whoever opens the console; the reader sees the message below.
    console.error(`The ${this.props.name} failed:`, error, info.componentStack);
  }

  private readonly retry = () => this.setState({ error: undefined });

  render() {
    if (this.state.error === undefined) return this.props.children;
    const view = this.props.size === 'view';
    return (
      <div role="alert" data-failed-panel={this.props.name} className={`rounded border border-red-300 bg-red-50 text-sm text-red-900 ${view ? 'm-4 p-4' : 'p-3'}`}>
        <p className="font-semibold">
          The {this.props.name} could not be shown{view ? '' : '; the rest of the view still works'}.
        </p>
        {/* Text only: the message may quote trace content. */}
        <pre className="mt-1 max-h-40 overflow-auto font-mono text-xs break-words whitespace-pre-wrap">{messageOf(this.state.error)}</pre>
        <Button className="mt-2" size="sm" onClick={this.retry}>
          Try again
        </Button>
      </div>
    );
  }
}
