import type { ReactNode } from 'react';
import { T } from '../testids.js';

export function Card({
  title,
  description,
  actions,
  children,
  testid,
  className,
  tone,
}: {
  title?: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  children?: ReactNode;
  testid?: string;
  className?: string;
  tone?: 'danger';
}) {
  return (
    <section
      className={['card', tone === 'danger' ? 'card-danger' : '', className ?? ''].filter(Boolean).join(' ')}
      data-testid={testid}
    >
      {(title || actions) && (
        <header className="card-header">
          <div>
            {title && <h2 className="card-title">{title}</h2>}
            {description && <p className="card-description">{description}</p>}
          </div>
          {actions && <div className="card-actions">{actions}</div>}
        </header>
      )}
      {children}
    </section>
  );
}

/** A page's title and lead sentence. */
export function PageHeader({ title, lead, actions }: { title: ReactNode; lead?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <div>
        <h1 data-testid={T.pageTitle}>{title}</h1>
        {lead && <p className="lead">{lead}</p>}
      </div>
      {actions && <div className="page-header-actions">{actions}</div>}
    </header>
  );
}

export function Badge({
  children,
  tone = 'neutral',
}: {
  children: ReactNode;
  tone?: 'neutral' | 'good' | 'warn' | 'accent' | 'bad';
}) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

/** A centred "please wait" line for content that is still on its way. */
export function Loading({ children = 'Loading…' }: { children?: ReactNode }) {
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" /> {children}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}
