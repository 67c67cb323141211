import { useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import { Icon } from './icons';

/** Pick a file with the keyboard or the mouse, or drop one here. */
export function FileDrop({
  onFile,
  accept,
  label,
  hint,
  disabled,
}: {
  onFile: (f: File) => void;
  accept?: string;
  label: string;
  hint?: string;
  disabled?: boolean;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const open = () => !disabled && input.current?.click();
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const f = e.dataTransfer.files[0];
    if (f && !disabled) onFile(f);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      open();
    }
  };
  return (
    <div
      className={`drop${over ? ' drop-over' : ''}${disabled ? ' drop-disabled' : ''}`}
      role="button"
      tabIndex={disabled ? -1 : 0}
      aria-label={label}
      aria-disabled={disabled}
      onClick={open}
      onKeyDown={onKey}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
    >
      <Icon name="upload" size={28} />
      <div className="drop-label">{label}</div>
      {hint && <div className="drop-hint">{hint}</div>}
      <input
        ref={input}
        type="file"
        accept={accept}
        hidden
        data-testid="file-input"
        onChange={(e) => {
          const f = e.target.files?.[0];
          e.target.value = '';
          if (f) onFile(f);
        }}
      />
    </div>
  );
}
