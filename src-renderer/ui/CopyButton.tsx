import { toast } from './toast.js';

/** Copies text to the clipboard (the async API, or a hidden field where that is refused). */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const field = document.createElement('textarea');
    field.value = text;
    field.setAttribute('readonly', '');
    field.style.position = 'fixed';
    field.style.opacity = '0';
    document.body.appendChild(field);
    field.select();
    document.execCommand('copy');
    field.remove();
  }
}

export function CopyButton({ text, label = 'Copy', testId = 'copy' }: { text: string; label?: string; testId?: string }) {
  return (
    <button
      type="button"
      className="rounded px-1.5 py-0.5 font-sans text-[11px] text-ink-400 hover:bg-ink-700 hover:text-ink-100"
      title={`Copy ${text}`}
      aria-label={`Copy ${text}`}
      data-testid={testId}
      onClick={() => void copyText(text).then(() => toast(`Copied ${text}`, 'info', 2500))}
    >
      {label}
    </button>
  );
}
