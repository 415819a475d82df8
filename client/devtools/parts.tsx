import type { ReactNode } from 'react';
import * as s from './styles.js';

export function Section({ title, children, wide }: { title: string; children: ReactNode; wide?: boolean }) {
  return (
    <section style={wide ? { ...s.section, gridColumn: '1 / -1' } : s.section} aria-label={title}>
      <h3 style={s.sectionTitle}>{title}</h3>
      {children}
    </section>
  );
}

export function Fact({ label, children, testid }: { label: string; children: ReactNode; testid?: string | undefined }) {
  return (
    <>
      <dt style={s.term}>{label}</dt>
      <dd style={s.value} data-testid={testid}>
        {children}
      </dd>
    </>
  );
}
