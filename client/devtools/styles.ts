import type { CSSProperties } from 'react';

/**
 * Inline styles only: they are set through the DOM, which a page's Content-Security-Policy allows
 * even without `'unsafe-inline'` styles (a <style> element it would block).
 */
const mono = 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
const sans = 'ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif';

export const palette = {
  background: '#0f172a',
  raised: '#1e293b',
  line: 'rgba(255, 255, 255, 0.08)',
  text: '#cbd5e1',
  strong: '#f8fafc',
  muted: '#94a3b8',
  online: '#22c55e',
  degraded: '#f59e0b',
  offline: '#ef4444',
  accent: '#38bdf8',
};

export const stateColor = { online: palette.online, degraded: palette.degraded, offline: palette.offline } as const;

export function toggle(position: 'bottom-right' | 'bottom-left'): CSSProperties {
  return {
    position: 'fixed',
    bottom: 10,
    [position === 'bottom-right' ? 'right' : 'left']: 10,
    zIndex: 2147483000,
    display: 'flex',
    alignItems: 'center',
    gap: 8,
    padding: '6px 12px',
    border: `1px solid ${palette.line}`,
    borderRadius: 999,
    background: palette.background,
    color: palette.text,
    font: `600 12px/1.2 ${sans}`,
    boxShadow: '0 4px 16px rgba(15, 23, 42, 0.35)',
    cursor: 'pointer',
  };
}

export const dot = (color: string): CSSProperties => ({
  width: 8,
  height: 8,
  borderRadius: '50%',
  background: color,
  boxShadow: `0 0 0 3px ${color}33`,
  flex: 'none',
});

export const chip: CSSProperties = {
  padding: '1px 7px',
  borderRadius: 999,
  background: 'rgba(255, 255, 255, 0.07)',
  color: palette.muted,
  fontWeight: 500,
};
export const chipValue: CSSProperties = { color: palette.strong, fontFamily: mono };

export const panel: CSSProperties = {
  position: 'fixed',
  left: 0,
  right: 0,
  bottom: 0,
  height: '50vh',
  minHeight: 260,
  zIndex: 2147483001,
  display: 'flex',
  flexDirection: 'column',
  background: palette.background,
  color: palette.text,
  font: `12px/1.45 ${sans}`,
  borderTop: `1px solid ${palette.line}`,
  boxShadow: '0 -8px 28px rgba(15, 23, 42, 0.35)',
};

export const header: CSSProperties = {
  display: 'flex',
  alignItems: 'center',
  gap: 10,
  padding: '8px 14px',
  borderBottom: `1px solid ${palette.line}`,
  flex: 'none',
};
export const title: CSSProperties = { color: palette.strong, fontWeight: 700, fontSize: 13 };
export const body: CSSProperties = { overflow: 'auto', padding: '10px 14px 16px', display: 'grid', gap: 14 };
export const columns: CSSProperties = {
  display: 'grid',
  gridTemplateColumns: 'repeat(auto-fit, minmax(260px, 1fr))',
  gap: 14,
};
export const section: CSSProperties = {
  background: palette.raised,
  border: `1px solid ${palette.line}`,
  borderRadius: 6,
  padding: '8px 10px',
  minWidth: 0,
};
export const sectionTitle: CSSProperties = {
  margin: '0 0 6px',
  color: palette.strong,
  fontSize: 12,
  fontWeight: 700,
  textTransform: 'uppercase',
  letterSpacing: '0.04em',
};
export const facts: CSSProperties = {
  display: 'grid',
  gridTemplateColumns: 'max-content 1fr',
  gap: '2px 12px',
  margin: 0,
};
export const term: CSSProperties = { color: palette.muted };
export const value: CSSProperties = { margin: 0, color: palette.strong, fontFamily: mono, overflowWrap: 'anywhere' };
export const note: CSSProperties = { color: palette.muted, margin: '4px 0 0' };
export const table: CSSProperties = { width: '100%', borderCollapse: 'collapse', fontFamily: mono, fontSize: 11.5 };
export const th: CSSProperties = {
  textAlign: 'left',
  color: palette.muted,
  fontFamily: sans,
  fontWeight: 600,
  padding: '3px 8px 3px 0',
  borderBottom: `1px solid ${palette.line}`,
  whiteSpace: 'nowrap',
};
export const td: CSSProperties = {
  padding: '3px 8px 3px 0',
  borderBottom: `1px solid ${palette.line}`,
  verticalAlign: 'top',
  color: palette.text,
};
export const button: CSSProperties = {
  font: `600 11px ${sans}`,
  color: palette.strong,
  background: 'rgba(56, 189, 248, 0.16)',
  border: `1px solid rgba(56, 189, 248, 0.4)`,
  borderRadius: 4,
  padding: '1px 8px',
  cursor: 'pointer',
};
export const closeButton: CSSProperties = {
  ...button,
  marginLeft: 'auto',
  background: 'transparent',
  border: `1px solid ${palette.line}`,
};
export const list: CSSProperties = { margin: 0, paddingLeft: 16 };

export const outcomeColor = { pending: palette.accent, success: palette.online, error: palette.offline } as const;
