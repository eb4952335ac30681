/** Metadata values (of organizations and users) are bytes, stored as standard base64 text. */
export function storedMetadataValue(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

/** The bytes of a stored metadata value. */
export function metadataValueBytes(stored: string): Uint8Array {
  return new Uint8Array(Buffer.from(stored, 'base64'));
}
