import QRCode from 'qrcode';
import { useEffect, useState } from 'react';

/** A QR code as a data-URL image (no canvas in the DOM, nothing inline but the image). */
export function QrCode({ text, label, testid }: { text: string; label: string; testid?: string }) {
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    QRCode.toDataURL(text, {
      errorCorrectionLevel: 'M',
      margin: 1,
      width: 192,
      color: { dark: '#111827', light: '#ffffff' },
    }).then(
      (data) => live && setUrl(data),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [text]);
  if (failed) return <p className="muted">The QR code could not be drawn; type the key below instead.</p>;
  return (
    <div className="qr">
      {url ? (
        <img src={url} alt={label} width={192} height={192} data-testid={testid} />
      ) : (
        <span className="qr-placeholder" />
      )}
    </div>
  );
}
