/** A row of segmented buttons for switching views inside a card. */
export function Tabs<K extends string>({
  tabs,
  value,
  onChange,
  label,
}: {
  tabs: Array<{ id: K; label: string; testid?: string }>;
  value: K;
  onChange: (id: K) => void;
  label: string;
}) {
  return (
    <div className="tabs" role="tablist" aria-label={label}>
      {tabs.map((tab) => (
        <button
          key={tab.id}
          type="button"
          role="tab"
          aria-selected={tab.id === value}
          className={tab.id === value ? 'tab is-active' : 'tab'}
          onClick={() => onChange(tab.id)}
          data-testid={tab.testid}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}
