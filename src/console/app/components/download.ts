/**
 * Hands `content` to the browser as the file `name` (a key file: the server keeps only the public half, so this
 * answer is the one time the private key exists). The object URL is let go a moment later, once the download
 * has started; revoking it at once can cancel the download.
 */
export function downloadFile(name: string, content: BlobPart, type = 'application/json'): void {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
