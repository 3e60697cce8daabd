/** The server's user-facing messages ("Title: description") as toast texts (pure). */

export interface ToastText {
  title: string;
  description: string;
}

/** "File Too Large: Please upload ..." -> { title: "File Too Large", description: "Please upload ..." }. */
export function toToastText(message: string): ToastText {
  const i = message.indexOf(": ");
  if (i < 0) return { title: message, description: "" };
  return { title: message.slice(0, i), description: message.slice(i + 2) };
}
