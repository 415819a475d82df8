import type { ReactNode } from 'react';
import { describeError } from '../../../client/messages.js';
import { T } from '../testids.js';

type Kind = 'info' | 'success' | 'warning' | 'error';

export function Alert({
  kind = 'info',
  title,
  children,
  testid,
  actions,
}: {
  kind?: Kind;
  title?: ReactNode;
  children?: ReactNode;
  testid?: string;
  actions?: ReactNode;
}) {
  return (
    <div className={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'} data-testid={testid}>
      <span className="alert-icon" aria-hidden="true" />
      <div className="alert-body">
        {title && <strong className="alert-title">{title}</strong>}
        {children && <div>{children}</div>}
        {actions && <div className="alert-actions">{actions}</div>}
      </div>
    </div>
  );
}

/**
 * `describeError`, except for the service's plain 4xx answers (not known errors), whose own text
 * ("A permission with ID … already exists.") says more than a generic sentence. Never JSON or HTML.
 */
export function errorSentence(error: unknown): string {
  if (typeof error === 'string') return error;
  const e = error as { code?: unknown; status?: unknown; body?: unknown } | null;
  if (
    e?.code === 'HTTP_STATUS_ERROR' &&
    typeof e.status === 'number' &&
    e.status >= 400 &&
    e.status < 500 &&
    typeof e.body === 'string'
  ) {
    const text = e.body.trim();
    if (text !== '' && text.length <= 300 && !/^[[{<]/.test(text)) return /[.!?]$/.test(text) ? text : `${text}.`;
  }
  return describeError(error).replace(/^HTTP \d{3}: /, '');
}

/** An error as a sentence a person understands (never raw JSON); nothing when there is none. */
export function ErrorText({
  error,
  testid = T.formError,
  children,
}: {
  error: unknown;
  testid?: string;
  children?: ReactNode;
}) {
  if (error === null || error === undefined) return null;
  const code = (error as { code?: unknown }).code;
  return (
    <Alert kind="error" testid={testid}>
      <span data-error-code={typeof code === 'string' ? code : undefined}>{errorSentence(error)}</span>
      {children}
    </Alert>
  );
}

export function Success({ children, testid = T.formSuccess }: { children: ReactNode; testid?: string }) {
  return (
    <Alert kind="success" testid={testid}>
      {children}
    </Alert>
  );
}
