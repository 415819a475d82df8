import { useState, type ReactNode } from 'react';
import { Button } from './Button.js';

/** A destructive action asked twice: its button, then what it will do with "Keep it" / "Yes, delete". */
export function ConfirmedDelete({
  title,
  description,
  question,
  label,
  busy,
  disabled = false,
  onConfirm,
  testid,
  confirmTestid,
}: {
  title: ReactNode;
  description: ReactNode;
  question: ReactNode;
  label: ReactNode;
  busy: boolean;
  disabled?: boolean;
  onConfirm: () => void;
  testid: string;
  confirmTestid: string;
}) {
  const [confirming, setConfirming] = useState(false);
  return (
    <div className="danger-zone">
      <div>
        <b>{title}</b>
        <p className="muted small">{confirming ? question : description}</p>
      </div>
      {confirming ? (
        <div className="row">
          <Button size="small" variant="ghost" onClick={() => setConfirming(false)} disabled={busy}>
            Keep it
          </Button>
          <Button size="small" variant="danger" busy={busy} onClick={onConfirm} testid={confirmTestid}>
            Yes, delete
          </Button>
        </div>
      ) : (
        <Button size="small" variant="danger" disabled={disabled} onClick={() => setConfirming(true)} testid={testid}>
          {label}
        </Button>
      )}
    </div>
  );
}
