// SGR colour sequences only: that is all chalk emits.
const SGR = /\u001b\[[0-9;]*m/g;

/** `text` without ANSI colour codes. */
export default function stripAnsi(text: string): string {
  return text.replace(SGR, '');
}
