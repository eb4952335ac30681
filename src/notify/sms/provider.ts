/** Sends a text message to a phone number; throws when the message was not accepted (the outbox retries). */
export interface SmsProvider {
  readonly name: string;
  send(message: { to: string; text: string; notificationId: string }): Promise<void>;
}
