/**
 * The service's 400s name the field and quote zod's own wording ("Invalid name: Too small:
 * expected string to have >=1 characters"). The renderer says the same in words people use
 * ("Name is required."); anything it does not recognise is shown as the service wrote it.
 */
const RULES: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [/^Too small: expected string to have >=1 characters?$/, () => 'is required'],
  [/^Too small: expected string to have >=(\d+) characters?$/, (m) => `must be at least ${m[1]} characters long`],
  [/^Too big: expected string to have <=(\d+) characters?$/, (m) => `must be at most ${m[1]} characters long`],
  [/^Too small: expected array to have >=1 items?$/, () => 'needs at least one entry'],
  [/^Too big: expected array to have <=(\d+) items?$/, (m) => `takes at most ${m[1]} entries`],
  [/^Too small: expected number to be >=?(-?[\d.]+)$/, (m) => `must be at least ${m[1]}`],
  [/^Too small: expected number to be >(-?[\d.]+)$/, (m) => `must be more than ${m[1]}`],
  [/^Too big: expected number to be <=?(-?[\d.]+)$/, (m) => `must be at most ${m[1]}`],
  [/^Invalid input: expected (number|int), received \w+$/, () => 'must be a number'],
  [/^Invalid input: expected string, received \w+$/, () => 'must be text'],
  [/^Invalid input: expected boolean, received \w+$/, () => 'must be true or false'],
  [/^Invalid option: expected one of (.+)$/, (m) => `must be one of ${m[1].replace(/\|/g, ', ')}`],
  [/^Invalid string: must match pattern .*$/, () => 'has characters that are not allowed'],
];

/** `volume_mounts[0].mount_path` → "Mount path (volume mounts 1)"; `name` → "Name". */
function fieldLabel(param: string): string {
  const parts = param.split('.');
  const last = parts.pop()!.replace(/\[\d+\]$/, '');
  const words = last.replace(/_/g, ' ');
  const label = words.charAt(0).toUpperCase() + words.slice(1);
  const where = parts
    .join(' ')
    .replace(/_/g, ' ')
    .replace(/\[(\d+)\]/g, (_, i: string) => ` ${Number(i) + 1}`);
  return where ? `${label} (${where})` : label;
}

export function humanValidation(message: string): string {
  const m = /^Invalid ([\w.[\]]+): (.*)$/s.exec(message);
  if (!m) return message;
  const [, param, detail] = m;
  for (const [re, say] of RULES) {
    const hit = re.exec(detail.trim());
    if (hit) return `${fieldLabel(param)} ${say(hit)}.`;
  }
  return message;
}
