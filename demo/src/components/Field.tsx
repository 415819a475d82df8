import type { ReactNode } from 'react';

/** A labelled form control with an optional hint and a problem shown under it. */
export function Field({
  label,
  hint,
  problem,
  children,
  className,
}: {
  label: ReactNode;
  hint?: ReactNode;
  problem?: string | null;
  children: ReactNode;
  className?: string;
}) {
  return (
    <label className={['field', problem ? 'has-problem' : '', className ?? ''].filter(Boolean).join(' ')}>
      <span className="field-label">{label}</span>
      {children}
      {problem ? (
        <span className="field-problem">{problem}</span>
      ) : hint ? (
        <span className="field-hint">{hint}</span>
      ) : null}
    </label>
  );
}

/** A switch-like checkbox with a label and a description. */
export function Toggle({
  label,
  description,
  checked,
  onChange,
  testid,
  disabled,
}: {
  label: ReactNode;
  description?: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  testid?: string;
  disabled?: boolean;
}) {
  return (
    <label className="toggle">
      <input
        type="checkbox"
        role="switch"
        checked={checked}
        disabled={disabled}
        onChange={(e) => onChange(e.target.checked)}
        data-testid={testid}
      />
      <span className="toggle-track" aria-hidden="true" />
      <span className="toggle-text">
        <span className="toggle-label">{label}</span>
        {description && <span className="toggle-description">{description}</span>}
      </span>
    </label>
  );
}

/** The 6-digit authenticator-app code (a space in the middle, as apps show it, is allowed). */
export function TotpCodeInput({
  value,
  onChange,
  testid,
  autoFocus,
}: {
  value: string;
  onChange: (value: string) => void;
  testid: string;
  autoFocus?: boolean;
}) {
  return (
    <input
      className="input input-code"
      value={value}
      onChange={(e) => onChange(e.target.value)}
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={7}
      placeholder="123456"
      autoFocus={autoFocus}
      data-testid={testid}
    />
  );
}
