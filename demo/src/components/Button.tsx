import type { ButtonHTMLAttributes, ReactNode } from 'react';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost' | 'link';

export type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: Variant;
  size?: 'small' | 'normal' | 'large';
  /** Shows a spinner and ignores clicks; the label stays so the layout does not jump. */
  busy?: boolean;
  testid?: string;
  children?: ReactNode;
};

export function Button({
  variant = 'secondary',
  size = 'normal',
  busy = false,
  testid,
  className,
  disabled,
  children,
  type = 'button',
  ...rest
}: ButtonProps) {
  const classes = [
    'btn',
    `btn-${variant}`,
    size === 'normal' ? '' : `btn-${size}`,
    busy ? 'is-busy' : '',
    className ?? '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <button
      type={type}
      className={classes}
      disabled={disabled === true || busy}
      aria-busy={busy || undefined}
      data-testid={testid}
      {...rest}
    >
      {busy && <span className="spinner" aria-hidden="true" />}
      <span className="btn-label">{children}</span>
    </button>
  );
}
