import type { ReactNode } from 'react';
import { AuthCard } from '../auth/AuthCard.js';

/** The frame of a handler page (a page e-mails and redirects land on), with its state for tests. */
export function HandlerCard({
  title,
  subtitle,
  testid,
  state,
  children,
}: {
  title: ReactNode;
  subtitle?: ReactNode;
  testid: string;
  state: string;
  children: ReactNode;
}) {
  return (
    <AuthCard title={title} subtitle={subtitle}>
      <div className="stack" data-testid={testid} data-state={state}>
        {children}
      </div>
    </AuthCard>
  );
}

/** The `code` query parameter of a link from an e-mail, trimmed; null when absent. */
export function codeFrom(search: URLSearchParams): string | null {
  const code = search.get('code')?.trim() ?? '';
  return code === '' ? null : code;
}
